// What a SliceRange (ir/ops.h) takes along its dim, computed so that a huge step cannot overflow:
// every backend that walks a slice uses these rather than multiplying the step out itself.
#pragma once

#include <cstdint>

#include "ir/ops.h"

namespace ember::ir {

/// The elements range takes: ceil((end - start) / step).
inline int64_t slice_length(const SliceRange& range) {
  const int64_t span = range.end - range.start;
  return span / range.step + (span % range.step != 0);
}

/// The distance between the elements range takes along a dim whose elements lie stride apart:
/// stride * step, or stride itself when it takes one element at most (a step past the dim's end,
/// whose product with stride may not fit in int64, is never walked).
inline int64_t slice_stride(const SliceRange& range, int64_t stride) {
  return slice_length(range) > 1 ? stride * range.step : stride;
}

}  // namespace ember::ir
