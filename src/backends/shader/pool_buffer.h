// PoolBuffer: a tensor's bytes in a shader backend's sliced pools (backends/pools), and the range
// of the device buffer its slice lies in (Pages::locate: a page's buffer and an offset), which
// kernels bind and copies read. The slice goes back to the pools with the last reference.
#pragma once

#include <cstddef>
#include <memory>

#include "backends/backend.h"
#include "backends/pools/memory_manager.h"

namespace ember::shader {

template <typename Pages, typename Range>
class PoolBuffer final : public backend::Buffer {
 public:
  PoolBuffer(std::shared_ptr<pools::MemoryManager> memory, const Pages& pages, std::size_t bytes)
      : memory_(std::move(memory)), bytes_(bytes), block_(memory_->allocate(bytes)) {
    try {
      range_ = pages.locate(block_, bytes);
    } catch (...) {
      memory_->deallocate(block_, bytes_);
      throw;
    }
  }
  ~PoolBuffer() override { memory_->deallocate(block_, bytes_); }
  PoolBuffer(const PoolBuffer&) = delete;
  PoolBuffer& operator=(const PoolBuffer&) = delete;

  const Range& range() const { return range_; }

 private:
  std::shared_ptr<pools::MemoryManager> memory_;
  std::size_t bytes_;
  std::byte* block_;
  Range range_;
};

}  // namespace ember::shader
