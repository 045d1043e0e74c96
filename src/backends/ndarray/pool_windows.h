// The windows of a pooling op: for each output index along each spatial dim, the input positions
// it reads. Every kernel of the pool family (max, average and its gradient, adaptive) walks these
// tables, so the geometry (stride, padding, dilation, ceil_mode's clipping, adaptive bounds) is
// turned into positions once, here. x's spatial dims are front-padded to three with singleton
// axes, so kernels always loop over three.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "ember/shape.h"
#include "ir/ops.h"

namespace ember::ndarray::pool {

inline constexpr std::size_t kAxes = 3;

/// The input positions first, first + step, ... (count of them, count >= 1) of one window.
struct Window {
  int64_t first;
  int64_t count;
  /// The window's extent clipped to the padded input: average pooling's divisor with
  /// count_include_pad (= count for adaptive windows).
  int64_t padded_count;
};

/// One spatial dim: its input size, the step between positions (the dilation) and one window
/// per output index.
struct Axis {
  int64_t in_size = 1;
  int64_t step = 1;
  std::vector<Window> windows{{0, 1, 1}};
};

/// The windows of every spatial dim and the number of [spatial] planes (N * C).
struct Windows {
  std::array<Axis, kAxes> axes;
  int64_t planes = 0;

  /// The number of elements of one input / output plane.
  int64_t in_plane() const;
  int64_t out_plane() const;
};

/// The three windows of one output cell.
using Cell = std::array<const Window*, kAxes>;

/// What an average divides its window's sum by.
struct Divisor {
  std::optional<int64_t> override_value;
  /// Count the padding inside the window (Pool's count_include_pad).
  bool count_padding = false;

  /// In double: a product of padded extents can pass int64 (a huge kernel over a tiny input).
  double of(const Cell& cell) const {
    if (override_value) return static_cast<double>(*override_value);
    double size = 1.0;
    for (const Window* window : cell)
      size *= static_cast<double>(count_padding ? window->padded_count : window->count);
    return size;
  }
};

/// The divisor of an average Pool.
inline Divisor pool_divisor(const ir::Pool& pool) {
  return {pool.divisor_override, pool.count_include_pad};
}
/// The divisor of an average AdaptivePool: its windows lie inside the input, each averages its
/// own elements.
inline const Divisor kAdaptiveDivisor{};

/// The windows of pool (as ir::infer accepted it) from x's shape to the output's.
Windows pool_windows(const ir::Pool& pool, const Shape& input, const Shape& output);
/// The windows of adaptive pooling from x's shape to the output's: output index i of a dim of
/// size out covers input [floor(i in / out), ceil((i + 1) in / out)).
Windows adaptive_windows(const Shape& input, const Shape& output);

/// Calls visit(out_offset, cell) for every output cell of a plane, in row-major order.
template <typename Visit>
void for_each_cell(const Windows& w, Visit&& visit) {
  const auto& [a, b, c] = w.axes;
  int64_t out = 0;
  for (const Window& wa : a.windows)
    for (const Window& wb : b.windows)
      for (const Window& wc : c.windows)
        visit(out++, Cell{&wa, &wb, &wc});
}

/// Calls visit(in_offset) for every input position of cell, in row-major order.
template <typename Visit>
void for_each_position(const Windows& w, const Cell& cell, Visit&& visit) {
  const auto& [a, b, c] = w.axes;
  for (int64_t i = 0; i < cell[0]->count; ++i) {
    const int64_t row_a = (cell[0]->first + i * a.step) * b.in_size;
    for (int64_t j = 0; j < cell[1]->count; ++j) {
      const int64_t row_b = (row_a + cell[1]->first + j * b.step) * c.in_size;
      for (int64_t k = 0; k < cell[2]->count; ++k)
        visit(row_b + cell[2]->first + k * c.step);
    }
  }
}

}  // namespace ember::ndarray::pool
