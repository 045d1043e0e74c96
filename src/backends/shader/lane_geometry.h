// A tensor seen as [rows, n, inner] around one dim: the lanes (rows x inner of them, each n
// elements strided by inner) that the shader backends' reductions and softmax work on.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ember/shape.h"

namespace ember::shader {

/// a / b rounded up (b >= 1; a + b below 2^64).
inline uint64_t ceil_div(uint64_t a, uint64_t b) {
  return (a + b - 1) / b;
}

/// shape as [rows, n, inner] around a dim.
struct LaneGeometry {
  uint64_t rows = 1;
  uint64_t n = 1;
  uint64_t inner = 1;

  /// The lanes along dim (non-negative, below shape's rank).
  static LaneGeometry around(const Shape& shape, int64_t dim) {
    LaneGeometry lanes;
    for (std::size_t d = 0; d < shape.rank(); ++d) {
      const auto i = static_cast<int64_t>(d);
      (i < dim ? lanes.rows : i == dim ? lanes.n : lanes.inner) *= static_cast<uint64_t>(shape[d]);
    }
    return lanes;
  }

  /// The lanes: one result each for a reduction.
  uint64_t lanes() const { return rows * inner; }
};

}  // namespace ember::shader
