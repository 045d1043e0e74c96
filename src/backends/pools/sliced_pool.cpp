#include "backends/pools/sliced_pool.h"

#include <algorithm>
#include <iterator>
#include <new>
#include <utility>

#include <sanitizer/asan_interface.h>

namespace ember::pools {
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

}  // namespace

SlicedPool::SlicedPool(std::size_t page_size, std::size_t slice_granularity,
                       std::shared_ptr<PageSource> pages)
    : page_size_(page_size),
      granularity_(slice_granularity),
      pages_source_(std::move(pages)),
      poisons_(pages_source_->is_host_memory()) {
  spare_slices_.reserve(kSpareNodes);
  spare_free_.reserve(kSpareNodes);
}

SlicedPool::~SlicedPool() {
  for (const auto& [base, page] : pages_)
    page_to_source(base);
}

std::byte* SlicedPool::allocate(std::size_t bytes) {
  const std::uintptr_t address = take_slice(slice_size(bytes));
  unpoison_if_host(address, bytes);
  largest_alloc_ = std::max(largest_alloc_, bytes);
  return reinterpret_cast<std::byte*>(address);
}

void SlicedPool::free(std::byte* data) {
  const auto address = reinterpret_cast<std::uintptr_t>(data);
  PageEntry& page = page_of(address);
  Slices& slices = page.second.slices;
  auto slice = slices.find(address - page.first);
  poison_if_host(address, slice->second.size);
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
  poison_if_host(address, size);
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
    page_to_source(it->first);
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
  const std::uintptr_t base = page_from_source();
  try {
    PageEntry& page = *pages_.try_emplace(base).first;
    page.second.slices.emplace(0, Slice{page_size_, true});
    free_slices_.insert({page_size_, base});
    pages_peak_ = std::max(pages_peak_, pages_.size());
    return page;
  } catch (...) {
    // The bookkeeping ran out of memory: forget the page whole, then give it back.
    pages_.erase(base);
    page_to_source(base);
    throw;
  }
}

std::uintptr_t SlicedPool::page_from_source() {
  const auto base =
      reinterpret_cast<std::uintptr_t>(pages_source_->take(page_size_, kSliceAlignment));
  poison_if_host(base, page_size_);
  return base;
}

void SlicedPool::page_to_source(std::uintptr_t base) noexcept {
  unpoison_if_host(base, page_size_);
  pages_source_->give_back(reinterpret_cast<std::byte*>(base), page_size_, kSliceAlignment);
}

void SlicedPool::poison_if_host(std::uintptr_t address, std::size_t bytes) const {
  if (poisons_) poison(address, bytes);
}

void SlicedPool::unpoison_if_host(std::uintptr_t address, std::size_t bytes) const {
  if (poisons_) unpoison(address, bytes);
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

}  // namespace ember::pools
