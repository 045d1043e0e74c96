// MemoryManager: the allocator of the cpu and cuda backends (docs/backends/cpu.md), over the pages
// of one PageSource (host memory, or a GPU's). Sliced pools by size class,
// installed in this order:
//   small   allocations up to 256 KiB: slices of 64-byte granules carved from 2 MiB pages;
//   medium  allocations up to 4 MiB: slices of 4 KiB granules carved from 32 MiB pages;
//   large   each allocation a dedicated page of its quarter-octave class (4, 5, 6, 7 × 2^k bytes),
//           one pool per class, installed when the class is first used.
// Freed slices and pages stay in their pool for later allocations, so a loop that allocates the
// same sizes reserves nothing new after its first round; cleanup() gives pages without live
// slices back to the source. While a thread is in persistent mode its allocations bypass the pools:
// exact-size blocks from the source (for weights), returned to it when freed.
// Thread-safe: every call takes one mutex.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <string>
#include "backends/pools/sliced_pool.h"

#include "backends/pools/page_source.h"
#include "core/lean_mutex.h"
#include "ember/memory.h"

namespace ember::pools {

class MemoryManager {
 public:
  static constexpr std::size_t kSmallPageSize = std::size_t{2} << 20;
  static constexpr std::size_t kSmallMaxAlloc = std::size_t{256} << 10;
  static constexpr std::size_t kSmallGranularity = 64;
  static constexpr std::size_t kMediumPageSize = std::size_t{32} << 20;
  static constexpr std::size_t kMediumMaxAlloc = std::size_t{4} << 20;
  static constexpr std::size_t kMediumGranularity = std::size_t{4} << 10;
  /// Alignment of every allocation, in bytes.
  static constexpr std::size_t kAlignment = SlicedPool::kSliceAlignment;
  static_assert(kSmallGranularity % kAlignment == 0);

  /// Installs the small and medium pools (no pages yet) over pages. device names the device in
  /// messages ("cpu", "cuda:0").
  explicit MemoryManager(std::shared_ptr<PageSource> pages = host_pages(),
                         std::string device = "cpu");

  /// bytes from the pool of their size class, or from persistent storage when the calling thread
  /// is in persistent mode. When the source refuses, the free pages are given back and the request
  /// tried once more; then ExecutionError naming bytes and what the pools hold.
  std::byte* allocate(std::size_t bytes);
  /// Gives back data with the bytes allocate was given (which name its pool).
  void deallocate(std::byte* data, std::size_t bytes) noexcept;

  /// Turns persistent mode on or off for the calling thread. Modes nest: each on needs its off,
  /// and an off without an on does nothing. Per thread, so that a thread building a model's
  /// weights does not send another thread's activations to persistent storage.
  void set_persistent(bool on);
  /// Gives every page without a live slice back to the source; live allocations stay where they
  /// are.
  void cleanup();

  /// One report per pool, in installation order.
  std::vector<SlicedPoolReport> report() const;
  /// Live allocations (pooled and persistent), the bytes they asked for, the rounding they were
  /// given on top (bytes_padding), and every byte held from the source (pages and persistent
  /// blocks).
  MemoryPoolUsage usage() const;

 private:
  std::byte* allocate_locked(std::size_t bytes);
  void release_free_pages_locked();
  MemoryPoolUsage usage_locked() const;
  bool persistent_on_this_thread() const;
  /// The pool of bytes's size class; nullptr for a large class whose pool is not installed yet.
  /// Inline for the fixed classes: every allocation and free asks for one.
  SlicedPool* find_pool(std::size_t bytes) const {
    if (bytes <= kSmallMaxAlloc) return pools_[0].get();
    if (bytes <= kMediumMaxAlloc) return pools_[1].get();
    return find_large_pool(bytes);
  }
  SlicedPool* find_large_pool(std::size_t bytes) const;
  /// The pool of bytes's size class (installing a large class's pool on first use).
  SlicedPool& pool_for(std::size_t bytes);

  std::shared_ptr<PageSource> pages_;
  std::string device_;
  mutable detail::LeanMutex mutex_;  // guards everything below; lean (taken on every op)
  std::vector<std::unique_ptr<SlicedPool>> pools_;
  /// The live persistent blocks; every other live block is pooled.
  std::unordered_set<const std::byte*> persistent_blocks_;
  std::size_t live_allocations_ = 0;
  std::unordered_map<std::thread::id, int> persistent_depth_;
  std::size_t bytes_in_use_ = 0;
  std::size_t bytes_padding_ = 0;
  std::size_t persistent_bytes_ = 0;
};

}  // namespace ember::pools
