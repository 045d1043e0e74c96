// ember tensors handed out as DLManagedTensors: the memory is shared, kept alive by the managed
// tensor's context until its consumer calls the deleter.
#include <dlpack/dlpack.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <sstream>
#include <utility>
#include <vector>

#include "core/device_context.h"
#include "ember/interop.h"
#include "interop/dlpack_dtype.h"
#include "tensor/check.h"
#include "tensor/tensor_impl.h"

namespace ember::interop {
namespace {

constexpr std::string_view kToDlpack = "to_dlpack";

/// What a DLManagedTensor handed out holds: the shape and strides its DLTensor points into, and
/// the owner of the memory.
struct Exported {
  DLManagedTensor managed{};
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  std::shared_ptr<void> owner;
};

/// The deleter of every DLManagedTensor ember hands out.
void delete_exported(DLManagedTensor* managed) {
  delete static_cast<Exported*>(managed->manager_ctx);
}

/// impl's values as a row-major copy: host memory owned by the copy.
backend::HostMemory row_major_copy(const detail::TensorImpl& impl) {
  auto copy = std::make_shared<TensorData>(impl.context->read(impl.operand()));
  return {copy->bytes_mut().data(), copy->shape().contiguous_strides(), copy};
}

/// impl's memory as DLPack can carry it: shared, or copied where a stride is negative (PyTorch
/// refuses those).
backend::HostMemory exportable_memory(const detail::TensorImpl& impl) {
  std::optional<backend::HostMemory> shared =
      impl.context->share_host_memory(impl.operand(), kToDlpack);
  if (!shared) {
    std::ostringstream device;
    device << impl.device;
    tensor::fail(kToDlpack, "device ", device.str(),
                 " keeps its memory off the host and cannot share it through DLPack (kDLCPU only); "
                 "move the tensor to a CPU device first (to_device(Device::cpu()))");
  }
  const bool negative = std::ranges::any_of(shared->strides, [](int64_t s) { return s < 0; });
  return negative ? row_major_copy(impl) : *std::move(shared);
}

}  // namespace

DLManagedTensor* to_dlpack(const TensorHandle& tensor) {
  const detail::TensorImpl& impl = tensor::impl_of(tensor, kToDlpack);
  backend::HostMemory memory = exportable_memory(impl);
  auto exported = std::make_unique<Exported>();
  exported->shape = impl.meta.shape.dims();
  exported->strides = std::move(memory.strides);
  exported->owner = std::move(memory.owner);
  DLTensor& dl = exported->managed.dl_tensor;
  dl.data = memory.data;
  dl.device = {kDLCPU, 0};
  dl.ndim = static_cast<int>(exported->shape.size());
  dl.dtype = to_dlpack_dtype(impl.meta.dtype);
  dl.shape = exported->shape.data();
  dl.strides = exported->strides.data();
  dl.byte_offset = 0;
  exported->managed.manager_ctx = exported.get();
  exported->managed.deleter = delete_exported;
  return &exported.release()->managed;
}

}  // namespace ember::interop
