// Memory statistics, one shape for every backend that pools memory.
#pragma once

#include <cstdint>
#include <ostream>

namespace ember {

/// One sliced memory pool: pages of page_size bytes carved into slices.
struct SlicedPoolReport {
  uint64_t page_size = 0;
  uint64_t pages = 0;
  uint64_t pages_peak = 0;
  uint64_t largest_alloc = 0;
};

/// What a device's allocator holds now.
struct MemoryPoolUsage {
  uint64_t number_allocs = 0;
  uint64_t bytes_in_use = 0;
  uint64_t bytes_padding = 0;
  uint64_t bytes_reserved = 0;
};

/// One line, sizes in binary units:
/// "SlicedPoolReport { page_size: 2.0 MiB, pages: 3, pages_peak: 4, largest_alloc: 512.0 KiB }".
std::ostream& operator<<(std::ostream& os, const SlicedPoolReport& r);
/// One line, sizes in binary units: "MemoryPoolUsage { number_allocs: 3, bytes_in_use: 1.5 KiB,
/// bytes_padding: 24 B, bytes_reserved: 2.0 MiB }".
std::ostream& operator<<(std::ostream& os, const MemoryPoolUsage& u);

}  // namespace ember
