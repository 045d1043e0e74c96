// The median of a benchmark's repeated timings (BENCHMARKING.md: medians, not means).
#pragma once

#include <algorithm>
#include <vector>

namespace ember::bench {

/// The middle value of values (the mean of the two middle ones for an even count); values must
/// not be empty.
inline double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

}  // namespace ember::bench
