#include "collective/buffer_pool.h"

#include <dlpack/dlpack.h>

#include <cstring>

#include "ember/error.h"
#include "ember/interop.h"
#include "ember/tensor_ops.h"

namespace ember::collective {
namespace {

/// Buffers kept at most: a collective's inputs and result, for a few ranks.
constexpr std::size_t kMaxSpare = 8;

/// Whether managed is host memory in x's row-major layout.
bool is_row_major_host(const DLManagedTensor& managed, const Shape& shape) {
  const DLTensor& t = managed.dl_tensor;
  if (t.device.device_type != kDLCPU || t.byte_offset != 0) return false;
  const std::vector<int64_t> row_major = shape.contiguous_strides();
  for (std::size_t i = 0; i < row_major.size(); ++i) {
    if (shape[i] > 1 && t.strides[i] != row_major[i]) return false;
  }
  return true;
}

}  // namespace

std::vector<std::byte> BufferPool::take(std::size_t bytes) {
  {
    const std::lock_guard lock(mutex_);
    for (auto it = spare_.begin(); it != spare_.end(); ++it) {
      if (it->capacity() < bytes) continue;
      std::vector<std::byte> buffer = std::move(*it);
      spare_.erase(it);
      buffer.resize(bytes);
      return buffer;
    }
  }
  return std::vector<std::byte>(bytes);
}

void BufferPool::give_back(std::vector<std::byte> bytes) {
  if (bytes.capacity() == 0) return;
  const std::lock_guard lock(mutex_);
  if (spare_.size() < kMaxSpare) spare_.push_back(std::move(bytes));
}

Rendezvous::Output BufferPool::output(TensorData data) {
  // Note: the pool outlives every result through this shared_ptr, the group or not.
  return Rendezvous::Output(
      new TensorData(std::move(data)), [pool = shared_from_this()](const TensorData* done) {
        pool->give_back(std::move(*const_cast<TensorData*>(done)).into_bytes());
        delete done;
      });
}

TensorData BufferPool::host_copy(const TensorHandle& x) {
  const Shape& shape = x.shape();
  if (shape.rank() == 0 || shape.num_elements() == 0) return ops::into_data(x);
  DLManagedTensor* managed = nullptr;
  try {
    managed = interop::to_dlpack(x);
  } catch (const InvalidArgument&) {
    return ops::into_data(x);  // memory off the host (cuda, remote): copied out
  }
  const std::unique_ptr<DLManagedTensor, void (*)(DLManagedTensor*)> release(
      managed, [](DLManagedTensor* m) { m->deleter(m); });
  if (!is_row_major_host(*managed, shape)) return ops::into_data(x);
  const std::size_t bytes = static_cast<std::size_t>(shape.num_elements()) * dtype_size(x.dtype());
  std::vector<std::byte> buffer = take(bytes);
  std::memcpy(buffer.data(), managed->dl_tensor.data, bytes);
  return TensorData(std::move(buffer), shape, x.dtype());
}

}  // namespace ember::collective
