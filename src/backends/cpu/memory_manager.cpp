#include "backends/cpu/memory_manager.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <new>
#include <utility>

namespace ember::cpu {
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

std::byte* persistent_block_from_os(std::size_t bytes) {
  return static_cast<std::byte*>(
      ::operator new (bytes, std::align_val_t{flex::Allocator::kAlignment}));
}

}  // namespace

MemoryManager::MemoryManager() {
  pools_.push_back(std::make_unique<SlicedPool>(kSmallPageSize, kSmallGranularity));
  pools_.push_back(std::make_unique<SlicedPool>(kMediumPageSize, kMediumGranularity));
}

std::byte* MemoryManager::allocate(std::size_t bytes) {
  const std::lock_guard lock(mutex_);
  SlicedPool* pool = persistent_on_this_thread() ? nullptr : &pool_for(bytes);
  // A persistent block is exact-size, but one byte at least so that its address is distinct.
  const Allocation a{pool, bytes,
                     pool != nullptr ? pool->slice_size(bytes) : std::max<std::size_t>(bytes, 1)};
  std::byte* data = pool != nullptr ? pool->allocate(bytes) : persistent_block_from_os(a.reserved);
  try {
    if (spare_live_node_) {
      spare_live_node_.key() = data;
      spare_live_node_.mapped() = a;
      live_.insert(std::move(spare_live_node_));
    } else {
      live_.emplace(data, a);
    }
  } catch (...) {
    release(data, a);
    throw;
  }
  bytes_in_use_ += a.bytes;
  bytes_padding_ += a.reserved - a.bytes;
  if (pool == nullptr) persistent_bytes_ += a.reserved;
  return data;
}

void MemoryManager::deallocate(std::byte* data, std::size_t /*bytes*/) noexcept {
  const std::lock_guard lock(mutex_);
  auto node = live_.extract(data);
  const Allocation& a = node.mapped();
  bytes_in_use_ -= a.bytes;
  bytes_padding_ -= a.reserved - a.bytes;
  if (a.pool == nullptr) persistent_bytes_ -= a.reserved;
  release(data, a);
  spare_live_node_ = std::move(node);
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
  std::size_t reserved = persistent_bytes_;
  for (const auto& pool : pools_)
    reserved += pool->reserved_bytes();
  return {.number_allocs = live_.size(),
          .bytes_in_use = bytes_in_use_,
          .bytes_padding = bytes_padding_,
          .bytes_reserved = reserved};
}

bool MemoryManager::persistent_on_this_thread() const {
  return !persistent_depth_.empty() && persistent_depth_.contains(std::this_thread::get_id());
}

SlicedPool& MemoryManager::pool_for(std::size_t bytes) {
  if (bytes <= kSmallMaxAlloc) return *pools_[0];
  if (bytes <= kMediumMaxAlloc) return *pools_[1];
  const std::size_t page_size = large_class_page_size(bytes);
  const auto large = std::find_if(pools_.begin() + kFixedPools, pools_.end(),
                                  [&](const auto& pool) { return pool->page_size() == page_size; });
  if (large != pools_.end()) return **large;
  return *pools_.emplace_back(std::make_unique<SlicedPool>(page_size, page_size));
}

void MemoryManager::release(std::byte* data, const Allocation& a) noexcept {
  if (a.pool != nullptr) {
    a.pool->recycle(data, a.bytes);
  } else {
    ::operator delete (data, std::align_val_t{flex::Allocator::kAlignment});
  }
}

}  // namespace ember::cpu
