#include "backends/flex/packing_buffer.h"

#include <mutex>
#include <string>
#include <utility>

#include "ember/error.h"

namespace ember::flex {
namespace {

/// The buffer kept between products, and its size.
struct Kept {
  std::mutex mutex;
  hwy::AlignedFreeUniquePtr<float[]> data{nullptr, hwy::AlignedFreer()};
  int64_t floats = 0;

  static Kept& instance() {
    // Never destroyed: a product may still end on a worker thread while statics go away.
    static Kept* kept = new Kept;
    return *kept;
  }
};

}  // namespace

PackingBuffer::PackingBuffer(int64_t floats) : data_(nullptr, hwy::AlignedFreer()), floats_(0) {
  Kept& kept = Kept::instance();
  {
    const std::lock_guard lock(kept.mutex);
    data_ = std::move(kept.data);
    floats_ = std::exchange(kept.floats, 0);
  }
  if (floats_ >= floats) return;
  data_.reset();
  floats_ = 0;
  data_ = hwy::AllocateAligned<float>(static_cast<size_t>(floats));
  if (!data_) {
    throw ExecutionError("[matmul] cannot allocate " + std::to_string(floats * 4) +
                         " bytes to pack the operands of a product");
  }
  floats_ = floats;
}

PackingBuffer::~PackingBuffer() {
  Kept& kept = Kept::instance();
  const std::lock_guard lock(kept.mutex);
  if (floats_ > kept.floats) {
    std::swap(kept.data, data_);  // the smaller one, if any, is freed with this object
    std::swap(kept.floats, floats_);
  }
}

void release_packing_buffer() {
  hwy::AlignedFreeUniquePtr<float[]> released(nullptr, hwy::AlignedFreer());
  Kept& kept = Kept::instance();
  const std::lock_guard lock(kept.mutex);
  released = std::move(kept.data);
  kept.floats = 0;
}

int64_t kept_packing_buffer_bytes() {
  Kept& kept = Kept::instance();
  const std::lock_guard lock(kept.mutex);
  return kept.floats * static_cast<int64_t>(sizeof(float));
}

}  // namespace ember::flex
