// Shared by the reference kernels of the fused row ops (norm.cpp, cross_entropy.cpp,
// softmax_grad.cpp): a tensor's values as doubles, and results computed in double rounded once to
// their output's dtype.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "ember/tensor_data.h"
#include "ir/ops.h"

namespace ember::ndarray {

/// t's values converted to double (exact for every float dtype).
inline std::vector<double> values_of(const TensorData* t) {
  return t->to_vector<double>();
}

/// values rounded once to meta's dtype, shaped as meta.
inline TensorData rounded_to(std::vector<double> values, const ir::TensorMeta& meta) {
  return TensorData(std::move(values), meta.shape, meta.dtype);
}

/// The length of x's last dim (its rows) and how many rows x holds.
struct RowExtents {
  int64_t rows;
  int64_t n;
};
inline RowExtents row_extents(const TensorData& x) {
  const int64_t n = x.shape().dims().back();
  int64_t rows = 1;
  for (std::size_t d = 0; d + 1 < x.shape().rank(); ++d)
    rows *= x.shape()[d];
  return {rows, n};
}

}  // namespace ember::ndarray
