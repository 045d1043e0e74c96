// Resampling. Interpolate is separable: along each spatial dim, output index i is a weighted sum
// of at most four input indices (its taps: one for nearest, two for linear, four for cubic), so
// the kernel resamples one dim at a time through a double buffer and rounds once to x's dtype.
// The gradient runs the transposed passes in reverse order: each tap sends the output gradient
// back to its input index with the same weight.
//
// Taps follow PyTorch's CPU kernels, coordinates computed in compute_t (float for f32, f16 and
// bf16; double for f64) as PyTorch's opmath: nearest reads floor(i * ratio); linear copies when
// in == out, else reads floor and floor + 1 of its clamped coordinate; cubic reads floor - 1 to
// floor + 2, clamped to the input (A = -0.75).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "backends/ndarray/kernels.h"

namespace ember::ndarray {
namespace {

using ir::InterpolateMode;

constexpr std::size_t kMaxTaps = 4;
constexpr double kCubicA = -0.75;

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

/// floor(x) as an index, at most in - 1. NaN and infinity (from an extreme scale factor) give
/// in - 1 instead of an undefined conversion.
template <typename F>
int64_t floor_index(F x, int64_t in) {
  const F floored = std::floor(x);
  return floored < static_cast<F>(in - 1) ? static_cast<int64_t>(floored) : in - 1;
}

/// x clamped to [0, 1].
template <typename F>
F unit_clamp(F x) {
  return std::min(std::max(x, F{0}), F{1});
}

/// Input coordinates per output index: (in - 1) / (out - 1) with align_corners, else 1 / scale
/// when a scale factor is given, else in / out.
template <typename F>
F source_ratio(const ir::Interpolate& op, std::size_t dim, int64_t in, int64_t out) {
  if (op.align_corners) return out > 1 ? static_cast<F>(in - 1) / static_cast<F>(out - 1) : F{0};
  if (!op.scales.empty()) return static_cast<F>(1.0 / op.scales[dim]);
  return static_cast<F>(in) / static_cast<F>(out);
}

/// The coordinate of output index i: i * ratio with align_corners, else the pixel centre
/// (i + 0.5) * ratio - 0.5, clamped at 0 for linear (PyTorch, after OpenCV).
template <typename F>
F source_coordinate(const ir::Interpolate& op, F ratio, int64_t i) {
  if (op.align_corners) return ratio * static_cast<F>(i);
  const F centre = ratio * (static_cast<F>(i) + F{0.5}) - F{0.5};
  return op.mode == InterpolateMode::Linear ? std::max(centre, F{0}) : centre;
}

template <typename F>
Taps nearest_taps(F ratio, int64_t i, int64_t in) {
  Taps taps;
  taps.add(floor_index(ratio * static_cast<F>(i), in), 1.0);
  return taps;
}

template <typename F>
Taps linear_taps(F coordinate, int64_t in) {
  const int64_t lower = floor_index(coordinate, in);
  const F lambda = unit_clamp(coordinate - static_cast<F>(lower));
  Taps taps;
  taps.add(lower, static_cast<double>(F{1} - lambda));
  taps.add(lower < in - 1 ? lower + 1 : lower, static_cast<double>(lambda));
  return taps;
}

/// Keys' cubic convolution kernel at distance x: |x| <= 1 and 1 < |x| < 2.
template <typename F>
F cubic_near(F x) {
  const F a{kCubicA};
  return ((a + 2) * x - (a + 3)) * x * x + 1;
}
template <typename F>
F cubic_far(F x) {
  const F a{kCubicA};
  return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
}

template <typename F>
Taps cubic_taps(F coordinate, int64_t in) {
  const int64_t base = floor_index(coordinate, in);
  const F t = unit_clamp(coordinate - static_cast<F>(base));
  const std::array<F, kMaxTaps> weights = {cubic_far(t + 1), cubic_near(t), cubic_near(1 - t),
                                           cubic_far(2 - t)};
  Taps taps;
  for (std::size_t j = 0; j < kMaxTaps; ++j) {
    const int64_t index = std::clamp<int64_t>(base - 1 + static_cast<int64_t>(j), 0, in - 1);
    taps.add(index, static_cast<double>(weights[j]));
  }
  return taps;
}

template <typename F>
Taps taps_of(const ir::Interpolate& op, F ratio, int64_t i, int64_t in, int64_t out) {
  switch (op.mode) {
    case InterpolateMode::Nearest:
      return nearest_taps(ratio, i, in);
    case InterpolateMode::Linear:
      if (in == out) return nearest_taps(F{1}, i, in);  // PyTorch copies at scale 1
      return linear_taps(source_coordinate(op, ratio, i), in);
    case InterpolateMode::Cubic:
      return cubic_taps(source_coordinate(op, ratio, i), in);
  }
  // Unreachable after ir::infer, which rejects unknown modes.
  throw InvalidArgument("[" + ir::name(op) + "] unknown mode");
}

template <typename F>
std::vector<DimPlan> plans_in(const ir::Interpolate& op, const Shape& input, const Shape& output) {
  std::vector<DimPlan> plans;
  for (std::size_t dim = 0; dim + 2 < input.rank(); ++dim) {
    DimPlan plan{input[dim + 2], output[dim + 2], {}};
    const F ratio = source_ratio<F>(op, dim, plan.in, plan.out);
    for (int64_t i = 0; i < plan.out; ++i)
      plan.taps.push_back(taps_of(op, ratio, i, plan.in, plan.out));
    plans.push_back(std::move(plan));
  }
  return plans;
}

/// The plan of every spatial dim, coordinates in the precision of dtype's compute_t.
std::vector<DimPlan> plans_for(const ir::Interpolate& op, const Shape& input, const Shape& output,
                               DType dtype) {
  return dtype == DType::F64 ? plans_in<double>(op, input, output)
                             : plans_in<float>(op, input, output);
}

/// One pass over values seen as [outer, size, inner] along a dim: dst[:, o, :] += w src[:, i, :]
/// for each tap (i, w) of output index o, or transposed, dst[:, i, :] += w src[:, o, :].
void resample_dim(std::span<const double> src, std::span<double> dst, const DimPlan& plan,
                  int64_t outer, int64_t inner, bool transposed) {
  const int64_t src_size = transposed ? plan.out : plan.in;
  const int64_t dst_size = transposed ? plan.in : plan.out;
  for (int64_t b = 0; b < outer; ++b) {
    for (int64_t o = 0; o < plan.out; ++o) {
      const Taps& taps = plan.taps[static_cast<std::size_t>(o)];
      for (std::size_t t = 0; t < taps.count; ++t) {
        const int64_t from = transposed ? o : taps.index[t];
        const int64_t to = transposed ? taps.index[t] : o;
        const double* s = src.data() + (b * src_size + from) * inner;
        double* d = dst.data() + (b * dst_size + to) * inner;
        for (int64_t k = 0; k < inner; ++k)
          d[k] += taps.weight[t] * s[k];
      }
    }
  }
}

/// values of shape dims resampled along every planned dim: in dim order from the input to the
/// output sizes, or transposed in reverse order from the output sizes to the input's.
std::vector<double> apply_plans(std::vector<double> values, std::vector<int64_t> dims,
                                const std::vector<DimPlan>& plans, bool transposed) {
  for (std::size_t k = 0; k < plans.size(); ++k) {
    const std::size_t dim = transposed ? plans.size() - 1 - k : k;
    const std::size_t axis = dim + 2;
    const DimPlan& plan = plans[dim];
    int64_t outer = 1;
    int64_t inner = 1;
    for (std::size_t d = 0; d < dims.size(); ++d) {
      if (d < axis) outer *= dims[d];
      if (d > axis) inner *= dims[d];
    }
    dims[axis] = transposed ? plan.in : plan.out;
    std::vector<double> next(static_cast<std::size_t>(outer * dims[axis] * inner));
    resample_dim(values, next, plan, outer, inner, transposed);
    values = std::move(next);
  }
  return values;
}

/// src resampled to result's shape by the passes of op between input and output, for caller (the
/// op run, named in errors).
TensorData resample(const ir::Op& caller, const ir::Interpolate& op, const Shape& input,
                    const Shape& output, const TensorData& src, const ir::TensorMeta& result,
                    bool transposed) {
  if (!is_float(src.dtype())) throw_unsupported(caller, src.dtype());
  // An empty batch: nothing to compute, and its sizes need not describe memory that exists.
  if (result.shape.num_elements() == 0) return zeros_like(result);
  const std::vector<DimPlan> plans = plans_for(op, input, output, src.dtype());
  return TensorData(apply_plans(src.to_vector<double>(), src.shape().dims(), plans, transposed),
                    result.shape, result.dtype);
}

}  // namespace

TensorData run(const ir::Interpolate& op, Inputs in, Outputs out) {
  const TensorData& x = *in[0];
  return resample(op, op, x.shape(), out[0].shape, x, out[0], false);
}

TensorData run(const ir::InterpolateGrad& op, Inputs in, Outputs out) {
  const TensorData& grad_output = *in[0];
  return resample(op, op.interpolate, op.input_shape, grad_output.shape(), grad_output, out[0],
                  true);
}

}  // namespace ember::ndarray
