#include "backends/cpu/sliced_pool.h"

#include <algorithm>
#include <iterator>
#include <new>

#include <sanitizer/asan_interface.h>
#include <sys/mman.h>

namespace ember::cpu {
namespace {

// Under AddressSanitizer the bytes a pool holds but has not handed out are poisoned, so a kernel
// that touches a freed tensor, or reads past a tensor's end, is reported as it would be with
// operator new. Without ASan these do nothing.
void poison(std::uintptr_t address, std::size_t bytes) {
  ASAN_POISON_MEMORY_REGION(reinterpret_cast<void*>(address), bytes);
}
void unpoison(std::uintptr_t address, std::size_t bytes) {
  ASAN_UNPOISON_MEMORY_REGION(reinterpret_cast<void*>(address), bytes);
}

/// A huge page on x86-64.
constexpr std::size_t kHugePage = std::size_t{2} << 20;
/// Pages of this size or more (the medium and large pools') start on a huge-page boundary and are
/// offered for transparent huge pages. The small pool's 2 MiB pages are not: backed whole at their
/// first touch, they raised the CNN training's peak memory by up to a fifth, and the tensors they
/// hold (256 KiB at most) are too small to stream.
constexpr std::size_t kHugePagesFrom = std::size_t{4} << 20;

std::align_val_t page_alignment(std::size_t bytes) {
  return std::align_val_t{bytes >= kHugePagesFrom ? kHugePage : SlicedPool::kSliceAlignment};
}

/// Asks for transparent huge pages where the kernel gives them only on request (THP "madvise",
/// Debian's default): a tensor streamed from memory then crosses no 4 KiB page boundaries, at
/// which the hardware prefetchers stop. On a Zen 4 VM a sum along the rows of a 64 MiB tensor ran
/// 1.2-1.3x as fast (docs/benchmarks.md). Advice only: a kernel without THP ignores it.
void advise_huge_pages(std::uintptr_t base, std::size_t bytes) {
  if (bytes >= kHugePagesFrom) madvise(reinterpret_cast<void*>(base), bytes, MADV_HUGEPAGE);
}

std::uintptr_t page_from_os(std::size_t bytes) {
  const auto base = reinterpret_cast<std::uintptr_t>(::operator new(bytes, page_alignment(bytes)));
  advise_huge_pages(base, bytes);
  poison(base, bytes);
  return base;
}

void page_to_os(std::uintptr_t base, std::size_t bytes) {
  unpoison(base, bytes);
  ::operator delete(reinterpret_cast<void*>(base), page_alignment(bytes));
}

}  // namespace

SlicedPool::SlicedPool(std::size_t page_size, std::size_t slice_granularity)
    : page_size_(page_size), granularity_(slice_granularity) {
  spare_slices_.reserve(kSpareNodes);
  spare_free_.reserve(kSpareNodes);
}

SlicedPool::~SlicedPool() {
  for (const auto& [base, page] : pages_)
    page_to_os(base, page_size_);
}

std::byte* SlicedPool::allocate(std::size_t bytes) {
  const std::uintptr_t address = take_slice(slice_size(bytes));
  unpoison(address, bytes);
  largest_alloc_ = std::max(largest_alloc_, bytes);
  return reinterpret_cast<std::byte*>(address);
}

void SlicedPool::free(std::byte* data) {
  const auto address = reinterpret_cast<std::uintptr_t>(data);
  PageEntry& page = page_of(address);
  Slices& slices = page.second.slices;
  auto slice = slices.find(address - page.first);
  poison(address, slice->second.size);
  FreeIndex::node_type node = std::move(slice->second.spare_node);
  slice->second.free = true;
  --page.second.live_slices;
  merge_with_next(page, slice);
  if (slice != slices.begin() && std::prev(slice)->second.free) {
    slice = std::prev(slice);
    erase_free(free_key(page, slice));
    merge_with_next(page, slice);
  }
  node.value() = free_key(page, slice);
  free_slices_.insert(std::move(node));
}

void SlicedPool::recycle(std::byte* data, std::size_t bytes) noexcept {
  const std::size_t size = slice_size(bytes);
  CachedSlices* cache = cache_of(size);
  if (cache == nullptr || cache->count == kCachedPerSize) {
    free(data);
    return;
  }
  const auto address = reinterpret_cast<std::uintptr_t>(data);
  poison(address, size);
  cache->addresses[cache->count++] = address;
}

std::size_t SlicedPool::release_free_pages() {
  flush_cache();
  std::size_t released = 0;
  for (auto it = pages_.begin(); it != pages_.end();) {
    if (it->second.live_slices != 0) {
      ++it;
      continue;
    }
    // Merging left a page without live slices as one free slice covering it.
    free_slices_.erase({page_size_, it->first});
    page_to_os(it->first, page_size_);
    it = pages_.erase(it);
    released += page_size_;
  }
  return released;
}

SlicedPoolReport SlicedPool::report() const {
  return {.page_size = page_size_,
          .pages = pages_.size(),
          .pages_peak = pages_peak_,
          .largest_alloc = largest_alloc_};
}

std::uintptr_t SlicedPool::take_slice(std::size_t size) {
  if (CachedSlices* cache = cache_of(size); cache != nullptr && cache->count != 0)
    return cache->addresses[--cache->count];
  auto best_fit = free_slices_.lower_bound({size, 0});
  if (best_fit == free_slices_.end()) {
    // Cached slices merged back may make room: a new page only when they do not.
    flush_cache();
    best_fit = free_slices_.lower_bound({size, 0});
  }
  const std::uintptr_t address =
      best_fit != free_slices_.end() ? best_fit->second : new_page().first;
  PageEntry& page = page_of(address);
  take(page, address - page.first, size);
  return address;
}

void SlicedPool::flush_cache() {
  for (CachedSlices& cache : cached_) {
    while (cache.count != 0)
      free(reinterpret_cast<std::byte*>(cache.addresses[--cache.count]));
  }
}

SlicedPool::PageEntry& SlicedPool::new_page() {
  const std::uintptr_t base = page_from_os(page_size_);
  try {
    PageEntry& page = *pages_.try_emplace(base).first;
    page.second.slices.emplace(0, Slice{page_size_, true});
    free_slices_.insert({page_size_, base});
    pages_peak_ = std::max(pages_peak_, pages_.size());
    return page;
  } catch (...) {
    // The bookkeeping ran out of memory: forget the page whole, then give it back.
    pages_.erase(base);
    page_to_os(base, page_size_);
    throw;
  }
}

SlicedPool::PageEntry& SlicedPool::page_of(std::uintptr_t address) {
  return *std::prev(pages_.upper_bound(address));
}

void SlicedPool::take(PageEntry& page, std::size_t offset, std::size_t size) {
  const auto slice = page.second.slices.find(offset);
  if (slice->second.size > size) split(page, slice, size);
  slice->second.spare_node = free_slices_.extract(free_key(page, slice));
  slice->second.size = size;
  slice->second.free = false;
  ++page.second.live_slices;
}

void SlicedPool::split(PageEntry& page, Slices::iterator it, std::size_t size) {
  Slices& slices = page.second.slices;
  const auto rest = insert_slice(slices, std::next(it), it->first + size, it->second.size - size);
  try {
    insert_free(free_key(page, rest));
  } catch (...) {
    erase_slice(slices, rest);
    throw;
  }
  // The split slice keeps its old size (and its key in free_slices_) until take() claims it.
}

void SlicedPool::merge_with_next(PageEntry& page, Slices::iterator it) {
  Slices& slices = page.second.slices;
  const auto next = std::next(it);
  if (next == slices.end() || !next->second.free) return;
  erase_free(free_key(page, next));
  it->second.size += next->second.size;
  erase_slice(slices, next);
}

SlicedPool::FreeKey SlicedPool::free_key(const PageEntry& page, Slices::const_iterator it) const {
  return {it->second.size, page.first + it->first};
}

SlicedPool::Slices::iterator SlicedPool::insert_slice(Slices& slices, Slices::iterator hint,
                                                      std::size_t offset, std::size_t size) {
  if (spare_slices_.empty()) return slices.emplace_hint(hint, offset, Slice{size, true});
  Slices::node_type node = std::move(spare_slices_.back());
  spare_slices_.pop_back();
  node.key() = offset;
  node.mapped() = Slice{size, true};
  return slices.insert(hint, std::move(node));
}

void SlicedPool::erase_slice(Slices& slices, Slices::iterator it) noexcept {
  Slices::node_type node = slices.extract(it);
  if (spare_slices_.size() < kSpareNodes) spare_slices_.push_back(std::move(node));
}

void SlicedPool::insert_free(FreeKey key) {
  if (spare_free_.empty()) {
    free_slices_.insert(key);
    return;
  }
  FreeIndex::node_type node = std::move(spare_free_.back());
  spare_free_.pop_back();
  node.value() = key;
  free_slices_.insert(std::move(node));
}

void SlicedPool::erase_free(FreeKey key) noexcept {
  FreeIndex::node_type node = free_slices_.extract(key);
  if (node && spare_free_.size() < kSpareNodes) spare_free_.push_back(std::move(node));
}

}  // namespace ember::cpu
