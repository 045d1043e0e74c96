// Software prefetch of a run that a later pass reads, shared by the row kernels.
#pragma once

#include <cstdint>

namespace ember::flex {

/// Cache lines of x[0, n) fetched toward L2 (prefetcht1) for a later pass: issued before a pass
/// that computes more than it reads (exponentials), memory keeps reading meanwhile instead of
/// idling, and the next pass does not wait on it. Rows of a few KiB, or runs of a few hundred
/// bytes per row across rows, are too short for the hardware prefetchers to run ahead of.
/// Always inlined: GCC 12 finds a function of nothing but prefetches free of side effects (const),
/// and deletes the calls of an out-of-line one (with its prefetches) as dead code.
template <typename T>
inline __attribute__((always_inline)) void fetch_toward_l2(const T* x, int64_t n) {
  constexpr int64_t kLine = 64 / sizeof(T);
  for (int64_t i = 0; i < n; i += kLine)
    __builtin_prefetch(x + i, 0, 2);
  if (n > 0) __builtin_prefetch(x + n - 1, 0, 2);  // a run that ends in a line of its own
}

}  // namespace ember::flex
