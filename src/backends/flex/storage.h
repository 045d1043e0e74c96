// Storage: the bytes behind one or more flex views. Allocated once, 64-byte aligned (a cache
// line, and the widest SIMD vector), and never written after the kernel that produced it
// returns: ops are functional, so views may share a storage freely.
#pragma once

#include <cstddef>
#include <memory>

namespace ember::flex {

class Storage {
 public:
  /// Alignment of every storage, in bytes.
  static constexpr std::size_t kAlignment = 64;

  /// Uninitialized storage of bytes bytes (0 allowed).
  explicit Storage(std::size_t bytes);

  std::size_t size() const { return size_; }
  const std::byte* data() const { return data_.get(); }
  /// Writable bytes: only for the kernel filling a storage it has just allocated.
  std::byte* mutable_data() { return data_.get(); }

 private:
  struct AlignedFree {
    void operator()(std::byte* p) const;
  };
  std::unique_ptr<std::byte[], AlignedFree> data_;
  std::size_t size_;
};

}  // namespace ember::flex
