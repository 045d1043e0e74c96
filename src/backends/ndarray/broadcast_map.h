// The loop shared by the elementwise kernels of two tensor inputs (binary arithmetic and
// comparisons): both inputs broadcast to the output's shape, one function per element pair.
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include "backends/ndarray/kernels.h"
#include "backends/ndarray/strided_index.h"

namespace ember::ndarray {

/// A tensor of out holding f(a, b) for each pair of elements of lhs and rhs (of one dtype T)
/// broadcast to out's shape. f's result type for T must be the element type of out's dtype.
template <typename F>
TensorData broadcast_map(const TensorData& lhs, const TensorData& rhs, const ir::TensorMeta& out,
                         F f) {
  const std::vector<int64_t> lhs_at = broadcast_offsets(lhs.shape(), out.shape);
  const std::vector<int64_t> rhs_at = broadcast_offsets(rhs.shape(), out.shape);
  TensorData result = zeros_like(out);
  visit_dtype(lhs.dtype(), [&]<typename T>() {
    const auto a = lhs.as<T>();
    const auto b = rhs.as<T>();
    auto dst = result.as_mut<std::invoke_result_t<F&, T, T>>();
    for (std::size_t i = 0; i < dst.size(); ++i)
      dst[i] = f(a[lhs_at[i]], b[rhs_at[i]]);
  });
  return result;
}

}  // namespace ember::ndarray
