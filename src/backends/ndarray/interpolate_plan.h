// The taps of interpolation: along each spatial dim, the input indices (at most four) each output
// index reads and their weights. Every interpolation kernel (ndarray's passes, cuda's tables, the
// gradients of both) resamples through these plans, so the coordinate rules (align_corners,
// scale factors, PyTorch's clamps, the cubic kernel) are computed once, here.
//
// Taps follow PyTorch's CPU kernels, coordinates computed in compute_t (float for f32, f16 and
// bf16; double for f64) as PyTorch's opmath: nearest reads floor(i * ratio); linear copies when
// in == out, else reads floor and floor + 1 of its clamped coordinate; cubic reads floor - 1 to
// floor + 2, clamped to the input (A = -0.75).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ember/dtype.h"
#include "ember/shape.h"
#include "ir/ops.h"

namespace ember::ndarray::interpolate {

inline constexpr std::size_t kMaxTaps = 4;

/// The input indices one output index reads along a dim, and their weights.
struct Taps {
  std::array<int64_t, kMaxTaps> index{};
  std::array<double, kMaxTaps> weight{};
  std::size_t count = 0;

  void add(int64_t i, double w) {
    index[count] = i;
    weight[count] = w;
    ++count;
  }
};

/// One spatial dim: its input and output sizes and the taps of each output index.
struct DimPlan {
  int64_t in;
  int64_t out;
  std::vector<Taps> taps;
};

/// The plan of every spatial dim (dims 2 and on) of op from input to output, coordinates in the
/// precision of dtype's compute_t.
std::vector<DimPlan> plans_for(const ir::Interpolate& op, const Shape& input, const Shape& output,
                               DType dtype);

/// The input coordinates per output index of spatial dim dim (from in to out indices): (in - 1) /
/// (out - 1) with align_corners, else 1 / scale when a scale factor is given, else in / out;
/// computed in the precision of dtype's compute_t, as the plans compute it (so float's value,
/// widened, for all but f64). Kernels that find their taps themselves (the shader backends') start
/// from it.
double source_ratio(const ir::Interpolate& op, std::size_t dim, int64_t in, int64_t out,
                    DType dtype);

/// The order to run the passes of plans in (dims, as indices into plans): those that shrink
/// their dim first, then those that grow it, each group in dim order (the gradient's transposed
/// passes, from out to in, in reverse dim order). Each pass resamples one dim on its own, so any
/// order gives the same values (to double rounding); this one keeps every intermediate within the
/// larger of the input and the output. In dim order an intermediate could hold the product of
/// their largest dims: [1, 1, 1, n] grown along H to n and shrunk along W to 1 held n * n values.
std::vector<std::size_t> pass_order(const std::vector<DimPlan>& plans, bool transposed);

}  // namespace ember::ndarray::interpolate
