// The extents of an indexed op along one dim (gather and scatter, whose indices are shaped as x
// but along dim): x as [outer, size, inner] and the indices as [outer, count, inner].
#pragma once

#include <cstdint>
#include <optional>

#include "ember/shape.h"

namespace ember::flex {

/// x [outer, size, inner] (indices and values [outer, count, inner]) around dim.
struct LaneExtents {
  int64_t outer = 1;
  int64_t size = 0;   ///< x's extent along dim
  int64_t count = 0;  ///< indices' extent along dim
  int64_t inner = 1;
};

/// The extents along dim, or nullopt when indices differ from x off dim.
inline std::optional<LaneExtents> lane_extents(const Shape& x, const Shape& indices, int64_t dim) {
  if (x.rank() != indices.rank()) return std::nullopt;
  LaneExtents e;
  for (std::size_t d = 0; d < x.rank(); ++d) {
    const auto axis = static_cast<int64_t>(d);
    if (axis == dim) {
      e.size = x[d];
      e.count = indices[d];
    } else if (x[d] != indices[d]) {
      return std::nullopt;
    } else {
      (axis < dim ? e.outer : e.inner) *= x[d];
    }
  }
  return e;
}

}  // namespace ember::flex
