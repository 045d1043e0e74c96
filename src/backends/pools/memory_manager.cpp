#include "backends/pools/memory_manager.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <new>
#include <string>
#include <utility>

#include "ember/error.h"

namespace ember::pools {
namespace {

/// Pools installed by the constructor, before any large class.
constexpr std::size_t kFixedPools = 2;

/// The dedicated page of a large allocation: bytes rounded up to a quarter of its octave
/// (4, 5, 6, 7 × 2^k), so a freed page serves every later allocation of its class and wastes
/// under a quarter of it.
std::size_t large_class_page_size(std::size_t bytes) {
  // Past half the address space the rounding could overflow; no such block exists anyway.
  if (bytes > std::numeric_limits<std::size_t>::max() / 2) throw std::bad_alloc();
  const std::size_t quarter = std::bit_floor(bytes) / 4;
  return (bytes + quarter - 1) / quarter * quarter;
}

/// A persistent block is exact-size, but one byte at least so that its address is distinct.
std::size_t persistent_block_size(std::size_t bytes) {
  return std::max<std::size_t>(bytes, 1);
}

}  // namespace

MemoryManager::MemoryManager(std::shared_ptr<PageSource> pages, std::string device)
    : pages_(std::move(pages)), device_(std::move(device)) {
  pools_.push_back(std::make_unique<SlicedPool>(kSmallPageSize, kSmallGranularity, pages_));
  pools_.push_back(std::make_unique<SlicedPool>(kMediumPageSize, kMediumGranularity, pages_));
}

std::byte* MemoryManager::allocate(std::size_t bytes) {
  const std::lock_guard lock(mutex_);
  try {
    return allocate_locked(bytes);
  } catch (const std::bad_alloc&) {
    // Free pages of other size classes may be what stands in the way (a phase that allocated
    // other sizes left them): give them back and try once more, as PyTorch's caching allocator
    // does before it reports running out.
  }
  release_free_pages_locked();
  try {
    return allocate_locked(bytes);
  } catch (const std::bad_alloc&) {
    const MemoryPoolUsage held = usage_locked();
    throw ExecutionError(
        "[" + device_ + "] out of memory: cannot allocate " + std::to_string(bytes) +
        " bytes, even after giving every free page back; the pools hold " +
        std::to_string(held.bytes_reserved) + " bytes (" + std::to_string(held.bytes_in_use) +
        " in use by " + std::to_string(held.number_allocs) + " tensors)");
  }
}

std::byte* MemoryManager::allocate_locked(std::size_t bytes) {
  std::byte* data = nullptr;
  std::size_t reserved = 0;
  if (persistent_on_this_thread()) {
    reserved = persistent_block_size(bytes);
    data = pages_->take(reserved, kAlignment);
    try {
      persistent_blocks_.insert(data);
    } catch (...) {
      pages_->give_back(data, reserved, kAlignment);
      throw;
    }
    persistent_bytes_ += reserved;
  } else {
    SlicedPool& pool = pool_for(bytes);
    reserved = pool.slice_size(bytes);
    data = pool.allocate(bytes);
  }
  ++live_allocations_;
  bytes_in_use_ += bytes;
  bytes_padding_ += reserved - bytes;
  return data;
}

void MemoryManager::deallocate(std::byte* data, std::size_t bytes) noexcept {
  const std::lock_guard lock(mutex_);
  std::size_t reserved = 0;
  // Note: the size class of bytes names the pool, so a pooled block needs no bookkeeping of its
  // own (a hash lookup per allocation and free, a visible part of an op on a tiny tensor); only
  // the rarer persistent blocks are kept in a set, to tell them apart.
  if (!persistent_blocks_.empty() && persistent_blocks_.erase(data) == 1) {
    reserved = persistent_block_size(bytes);
    persistent_bytes_ -= reserved;
    pages_->give_back(data, reserved, kAlignment);
  } else {
    SlicedPool& pool = *find_pool(bytes);  // installed when the block was allocated
    reserved = pool.slice_size(bytes);
    pool.recycle(data, bytes);
  }
  --live_allocations_;
  bytes_in_use_ -= bytes;
  bytes_padding_ -= reserved - bytes;
}

void MemoryManager::set_persistent(bool on) {
  const std::lock_guard lock(mutex_);
  const std::thread::id thread = std::this_thread::get_id();
  if (on) {
    ++persistent_depth_[thread];
    return;
  }
  const auto it = persistent_depth_.find(thread);
  if (it != persistent_depth_.end() && --it->second == 0) persistent_depth_.erase(it);
}

void MemoryManager::cleanup() {
  const std::lock_guard lock(mutex_);
  release_free_pages_locked();
}

void MemoryManager::release_free_pages_locked() {
  for (const auto& pool : pools_)
    pool->release_free_pages();
}

std::vector<SlicedPoolReport> MemoryManager::report() const {
  const std::lock_guard lock(mutex_);
  std::vector<SlicedPoolReport> reports;
  reports.reserve(pools_.size());
  for (const auto& pool : pools_)
    reports.push_back(pool->report());
  return reports;
}

MemoryPoolUsage MemoryManager::usage() const {
  const std::lock_guard lock(mutex_);
  return usage_locked();
}

MemoryPoolUsage MemoryManager::usage_locked() const {
  std::size_t reserved = persistent_bytes_;
  for (const auto& pool : pools_)
    reserved += pool->reserved_bytes();
  return {.number_allocs = live_allocations_,
          .bytes_in_use = bytes_in_use_,
          .bytes_padding = bytes_padding_,
          .bytes_reserved = reserved};
}

bool MemoryManager::persistent_on_this_thread() const {
  return !persistent_depth_.empty() && persistent_depth_.contains(std::this_thread::get_id());
}

SlicedPool* MemoryManager::find_large_pool(std::size_t bytes) const {
  const std::size_t page_size = large_class_page_size(bytes);
  const auto large = std::find_if(pools_.begin() + kFixedPools, pools_.end(),
                                  [&](const auto& pool) { return pool->page_size() == page_size; });
  return large != pools_.end() ? large->get() : nullptr;
}

SlicedPool& MemoryManager::pool_for(std::size_t bytes) {
  if (SlicedPool* pool = find_pool(bytes)) return *pool;
  const std::size_t page_size = large_class_page_size(bytes);
  return *pools_.emplace_back(std::make_unique<SlicedPool>(page_size, page_size, pages_));
}

}  // namespace ember::pools
