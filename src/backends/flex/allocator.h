// Allocator: where flex storage gets its bytes. Plain flex uses aligned operator new/delete; the
// cpu backend plugs in its sliced memory pools (src/backends/cpu/memory_manager.h).
//
// How a kernel reaches the allocator: through the calling thread's "current allocator", which
// FlexBackend installs with an AllocatorScope for the length of each execute/write. Kernels
// therefore take no allocator argument. This works because every Storage is created on the thread
// that called the backend: thread-pool chunks (parallel_for bodies) only fill storage allocated
// before the loop started, they never allocate one — a worker thread would see no scope and fall
// back to the default allocator, which would still be correct (the storage keeps its allocator),
// only not pooled.
#pragma once

#include <cstddef>
#include <memory>

namespace ember::flex {

class Allocator {
 public:
  /// Alignment of every allocation, in bytes: a cache line, and the widest SIMD vector.
  static constexpr std::size_t kAlignment = 64;

  virtual ~Allocator() = default;

  /// At least bytes uninitialized bytes aligned to kAlignment; a distinct address for every live
  /// allocation, bytes == 0 included. Throws ExecutionError naming bytes and what the allocator
  /// holds when memory runs out.
  virtual std::byte* allocate(std::size_t bytes) = 0;
  /// Gives back data, which allocate(bytes) returned, with the same bytes.
  virtual void deallocate(std::byte* data, std::size_t bytes) noexcept = 0;
};

/// The allocator of plain flex: aligned operator new/delete (one shared instance).
const std::shared_ptr<Allocator>& new_delete_allocator();

/// The allocator new storage on this thread comes from: the innermost live AllocatorScope's, else
/// new_delete_allocator().
const std::shared_ptr<Allocator>& current_allocator();

/// Makes allocator this thread's current allocator until the scope ends (scopes nest). The
/// shared_ptr it refers to must outlive the scope.
class AllocatorScope {
 public:
  explicit AllocatorScope(const std::shared_ptr<Allocator>& allocator);
  ~AllocatorScope();
  AllocatorScope(const AllocatorScope&) = delete;
  AllocatorScope& operator=(const AllocatorScope&) = delete;

 private:
  const std::shared_ptr<Allocator>* previous_;
};

}  // namespace ember::flex
