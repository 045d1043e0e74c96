// Storage: the bytes behind one or more flex views. Allocated once, Allocator::kAlignment-aligned,
// and never written by ember after the kernel that produced it returns: ops are functional, so
// views may share a storage freely. Each storage keeps the allocator it came from alive, so a
// tensor that outlives its backend (or its device context) still gives its bytes back to the
// right place. A storage may also lie over foreign memory (DLPack, another backend's buffer):
// it then holds that memory's owner instead, and is aligned only to its elements. Note: memory
// shared with the outside (src/interop) may be written there; ember itself never does.
#pragma once

#include <cstddef>
#include <memory>

#include "backends/flex/allocator.h"

namespace ember::flex {

class Storage {
 public:
  /// Alignment of every storage, in bytes.
  static constexpr std::size_t kAlignment = Allocator::kAlignment;

  /// Uninitialized storage of bytes bytes (0 allowed) from this thread's current_allocator().
  explicit Storage(std::size_t bytes);
  /// Uninitialized storage of bytes bytes (0 allowed) from allocator.
  Storage(std::size_t bytes, std::shared_ptr<Allocator> allocator);
  /// Storage over bytes bytes at data that flex did not allocate; owner keeps them alive until
  /// the storage dies.
  Storage(std::byte* data, std::size_t bytes, std::shared_ptr<void> owner);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  std::size_t size() const { return size_; }
  const std::byte* data() const { return data_; }
  /// Writable bytes: only for the kernel filling a storage it has just allocated.
  std::byte* mutable_data() { return data_; }

 private:
  std::shared_ptr<Allocator> allocator_;  ///< null over foreign memory
  std::shared_ptr<void> owner_;           ///< foreign memory's owner
  std::byte* data_;
  std::size_t size_;
};

}  // namespace ember::flex
