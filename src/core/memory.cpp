#include "ember/memory.h"

#include <array>
#include <cstdio>

namespace ember {
namespace {

/// "512 B", "1.5 KiB", "2.0 MiB", ...: bytes in the largest binary unit that keeps the number
/// at least 1.
struct ReadableBytes {
  uint64_t bytes;
};

std::ostream& operator<<(std::ostream& os, ReadableBytes b) {
  constexpr std::array<const char*, 6> kUnits = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (b.bytes < 1024) return os << b.bytes << " B";
  auto value = static_cast<double>(b.bytes) / 1024;
  std::size_t unit = 0;
  for (; value >= 1024 && unit + 1 < kUnits.size(); ++unit)
    value /= 1024;
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %s", value, kUnits[unit]);
  return os << text;
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const SlicedPoolReport& r) {
  return os << "SlicedPoolReport { page_size: " << ReadableBytes{r.page_size}
            << ", pages: " << r.pages << ", pages_peak: " << r.pages_peak
            << ", largest_alloc: " << ReadableBytes{r.largest_alloc} << " }";
}

std::ostream& operator<<(std::ostream& os, const MemoryPoolUsage& u) {
  return os << "MemoryPoolUsage { number_allocs: " << u.number_allocs
            << ", bytes_in_use: " << ReadableBytes{u.bytes_in_use}
            << ", bytes_padding: " << ReadableBytes{u.bytes_padding}
            << ", bytes_reserved: " << ReadableBytes{u.bytes_reserved} << " }";
}

}  // namespace ember
