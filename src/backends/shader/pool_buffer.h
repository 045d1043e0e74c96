// PoolBuffer: a tensor's bytes in a shader backend's sliced pools (backends/pools), and the range
// of the device buffer its slice lies in (Pages::locate: a page's buffer and an offset), which
// kernels bind and copies read. The slice goes back to the pools with the last reference. An
// integer tensor's buffer may also know its values' range (core/index_range.h: from its upload,
// an arange, or the tensor it was rearranged from), so that an indexing op need not check its
// indices on the device and wait for the answer. And a buffer may be a transpose not yet
// written (a Deferred: the tensor it transposes), which the matmul kernels read as it is, and
// which is written when anything else first needs its bytes (ShaderBackend::range_of).
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>

#include "backends/backend.h"
#include "backends/pools/memory_manager.h"
#include "core/index_range.h"
#include "ir/ops.h"

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

  /// A transpose of source's last two dims (source of source_meta, this buffer of meta) whose
  /// bytes are not written yet.
  struct Deferred {
    backend::BufferPtr source;
    ir::TensorMeta source_meta;
    ir::TensorMeta meta;
  };
  /// Marks the bytes unwritten: a transpose of deferred's source.
  void defer(Deferred deferred) {
    const std::lock_guard lock(mutex_);
    deferred_ = std::move(deferred);
  }
  /// What the bytes are a transpose of, where they are not written yet.
  std::optional<Deferred> deferred() const {
    const std::lock_guard lock(mutex_);
    return deferred_;
  }
  /// Where the bytes are not written yet, write(deferred) writes them (records their copy), once:
  /// a reader of the bytes calls this first, and another waits until the copy is recorded. The
  /// buffer's value is the same before and after, so this is const.
  template <typename Write>
  void write_deferred(const Write& write) const {
    const std::lock_guard lock(mutex_);
    if (!deferred_) return;
    write(*deferred_);
    deferred_.reset();
  }

  /// The range of the values, where the host knows it.
  const std::optional<detail::IndexRange>& index_range() const { return index_range_; }
  void set_index_range(std::optional<detail::IndexRange> range) { index_range_ = range; }

 private:
  std::shared_ptr<pools::MemoryManager> memory_;
  std::size_t bytes_;
  std::byte* block_;
  Range range_;
  std::optional<detail::IndexRange> index_range_;
  mutable std::mutex mutex_;  // guards deferred_
  mutable std::optional<Deferred> deferred_;
};

}  // namespace ember::shader
