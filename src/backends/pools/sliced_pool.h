// SlicedPool: one memory pool of the cpu and cuda backends. It takes pages of one size from its
// PageSource (the OS, or a device) and
// carves them into slices: an allocation takes the best-fitting free slice (the smallest that is
// large enough, the lowest address among equals) and splits off what it does not need; a freed
// slice merges with its free neighbours, so a page whose slices are all freed is one free slice
// again. A slice freed through recycle() is first kept whole in a small cache by size, which the
// next allocation of that size takes without touching the trees (the cache is emptied into the
// trees before a new page is taken and before pages are released, so it never costs a page).
// Memory goes back to the source only through release_free_pages(). Under AddressSanitizer
// every byte not handed out is poisoned, so ASan still catches a use after free or a read past a
// tensor's end. Not thread-safe: the MemoryManager owning the pools serializes every call.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include "backends/pools/page_source.h"
#include "ember/memory.h"

namespace ember::pools {

class SlicedPool {
 public:
  /// Alignment of every page and slice, in bytes (flex's Allocator::kAlignment).
  static constexpr std::size_t kSliceAlignment = 64;

  /// A pool of page_size-byte pages whose slices are whole multiples of slice_granularity
  /// (a multiple of kSliceAlignment dividing page_size). A granularity of page_size makes a pool
  /// of dedicated pages: one allocation per page.
  /// Pages come from pages (host memory by default).
  SlicedPool(std::size_t page_size, std::size_t slice_granularity,
             std::shared_ptr<PageSource> pages = host_pages());
  ~SlicedPool();
  SlicedPool(const SlicedPool&) = delete;
  SlicedPool& operator=(const SlicedPool&) = delete;

  std::size_t page_size() const { return page_size_; }
  /// The slice an allocation of bytes takes: bytes rounded up to the granularity (one granule
  /// for 0 bytes, so that every allocation has a distinct address).
  /// Inline: each allocation and free asks for it a few times.
  std::size_t slice_size(std::size_t bytes) const {
    const std::size_t granules =
        std::max<std::size_t>(1, (bytes + granularity_ - 1) / granularity_);
    return granules * granularity_;
  }

  /// A slice of slice_size(bytes) bytes (bytes <= page_size()): a free one when one is large
  /// enough, else carved from a new page. Throws std::bad_alloc when the source refuses a page.
  std::byte* allocate(std::size_t bytes);
  /// Frees the slice at data, which allocate returned and which is live.
  void free(std::byte* data);
  /// Frees the slice at data, which allocate(bytes) returned and which is live, keeping it whole
  /// for the next allocation of its size when it is small and the cache of its size has room.
  void recycle(std::byte* data, std::size_t bytes) noexcept;
  /// Gives every page without a live slice back to the source; returns the bytes released.
  std::size_t release_free_pages();

  /// Bytes held from the source: pages * page_size.
  std::size_t reserved_bytes() const { return pages_.size() * page_size_; }
  /// page_size, pages now, most pages held at once, largest allocation served (bytes asked for).
  SlicedPoolReport report() const;

 private:
  /// A free slice in free_slices_: (size, address), so that lower_bound finds the best fit.
  using FreeKey = std::pair<std::size_t, std::uintptr_t>;
  using FreeIndex = std::set<FreeKey>;

  struct Slice {
    std::size_t size;
    bool free;
    /// While the slice is live, the node of its free_slices_ entry, so that free() reinserts
    /// it without allocating (free runs inside a noexcept deallocate).
    FreeIndex::node_type spare_node = {};
  };
  using Slices = std::map<std::size_t, Slice>;  ///< By offset; they tile the page.
  struct Page {
    Slices slices;
    std::size_t live_slices = 0;
  };
  using PageEntry = std::pair<const std::uintptr_t, Page>;

  /// Slices of up to kCachedGranules granules are cached, at most kCachedPerSize of each size.
  /// Note: an allocate/free pair through the trees is a visible part of an op on a tiny tensor.
  static constexpr std::size_t kCachedGranules = 16;
  static constexpr std::size_t kCachedPerSize = 4;
  struct CachedSlices {
    std::array<std::uintptr_t, kCachedPerSize> addresses{};
    std::size_t count = 0;
  };

  /// The cache of slices of size bytes, or nullptr when that size is not cached.
  CachedSlices* cache_of(std::size_t size) {
    const std::size_t granules = size / granularity_;
    return granules <= kCachedGranules ? &cached_[granules - 1] : nullptr;
  }
  /// A slice of size bytes, from the cache when it holds one, else from the trees.
  std::uintptr_t take_slice(std::size_t size);
  /// Frees every cached slice into the trees (merging it with its free neighbours).
  void flush_cache();
  PageEntry& new_page();
  std::uintptr_t page_from_source();
  void page_to_source(std::uintptr_t base) noexcept;
  /// ASan poisoning, of host memory only (a device's addresses have no shadow to poison).
  void poison_if_host(std::uintptr_t address, std::size_t bytes) const;
  void unpoison_if_host(std::uintptr_t address, std::size_t bytes) const;
  PageEntry& page_of(std::uintptr_t address);
  /// Marks the free slice at offset of page live, splitting off the rest of it as a free slice.
  void take(PageEntry& page, std::size_t offset, std::size_t size);
  /// Makes the first size bytes of the free slice at it a slice of their own, and the rest a
  /// free slice. Changes nothing if it throws.
  void split(PageEntry& page, Slices::iterator it, std::size_t size);
  /// Merges the slice at it with the slice after it when that one is free (dropping its entry
  /// in free_slices_).
  void merge_with_next(PageEntry& page, Slices::iterator it);
  FreeKey free_key(const PageEntry& page, Slices::const_iterator it) const;
  /// Bookkeeping nodes: taken from the spares when there are some, given back to them when a
  /// slice or free entry goes away. Note: an allocate/free pair otherwise allocates and frees
  /// two tree nodes on the heap, a visible part of an op on a tiny tensor.
  Slices::iterator insert_slice(Slices& slices, Slices::iterator hint, std::size_t offset,
                                std::size_t size);
  void erase_slice(Slices& slices, Slices::iterator it) noexcept;
  void insert_free(FreeKey key);
  void erase_free(FreeKey key) noexcept;

  std::size_t page_size_;
  std::size_t granularity_;
  std::shared_ptr<PageSource> pages_source_;
  bool poisons_;
  std::map<std::uintptr_t, Page> pages_;  ///< By base address.
  FreeIndex free_slices_;
  /// Spare nodes, at most kSpareNodes of each (reserved up front: keeping one never allocates).
  static constexpr std::size_t kSpareNodes = 4;
  std::vector<Slices::node_type> spare_slices_;
  std::vector<FreeIndex::node_type> spare_free_;
  std::array<CachedSlices, kCachedGranules> cached_;  ///< By granules - 1.
  std::size_t pages_peak_ = 0;
  std::size_t largest_alloc_ = 0;
};

}  // namespace ember::pools
