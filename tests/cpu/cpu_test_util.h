// Helpers of the cpu tests: byte patterns that show whether memory kept its contents, and
// differences between two MemoryPoolUsage readings.
#pragma once

#include <cstddef>
#include <cstdint>
#include <tuple>

#include "ember/memory.h"

namespace ember::cpu::test {

inline constexpr uint64_t KiB = 1024;
inline constexpr uint64_t MiB = 1024 * KiB;

/// The pattern's byte i: seed mixed with i, so that neighbouring slices and shifted copies differ.
inline std::byte pattern_byte(std::size_t i, uint8_t seed) {
  return static_cast<std::byte>((i * 131 + seed * 7 + 1) & 0xff);
}

inline void fill_pattern(std::byte* data, std::size_t bytes, uint8_t seed) {
  for (std::size_t i = 0; i < bytes; ++i)
    data[i] = pattern_byte(i, seed);
}

inline bool has_pattern(const std::byte* data, std::size_t bytes, uint8_t seed) {
  for (std::size_t i = 0; i < bytes; ++i) {
    if (data[i] != pattern_byte(i, seed)) return false;
  }
  return true;
}

/// The fields as a tuple, for EXPECT_EQ (the structs themselves have no ==).
inline auto fields(const MemoryPoolUsage& u) {
  return std::tuple(u.number_allocs, u.bytes_in_use, u.bytes_padding, u.bytes_reserved);
}
inline auto fields(const SlicedPoolReport& r) {
  return std::tuple(r.page_size, r.pages, r.pages_peak, r.largest_alloc);
}

/// after - before, field by field (signed, so that a release shows as negative).
struct UsageChange {
  int64_t number_allocs;
  int64_t bytes_in_use;
  int64_t bytes_padding;
  int64_t bytes_reserved;
};

inline UsageChange change(const MemoryPoolUsage& before, const MemoryPoolUsage& after) {
  const auto diff = [](uint64_t a, uint64_t b) {
    return static_cast<int64_t>(b) - static_cast<int64_t>(a);
  };
  return {diff(before.number_allocs, after.number_allocs),
          diff(before.bytes_in_use, after.bytes_in_use),
          diff(before.bytes_padding, after.bytes_padding),
          diff(before.bytes_reserved, after.bytes_reserved)};
}

}  // namespace ember::cpu::test
