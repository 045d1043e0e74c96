#include "backends/ndarray/interpolate_plan.h"

#include <algorithm>
#include <cmath>

#include "ember/error.h"

namespace ember::ndarray::interpolate {
namespace {

using ir::InterpolateMode;

constexpr double kCubicA = -0.75;

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

}  // namespace

std::vector<DimPlan> plans_for(const ir::Interpolate& op, const Shape& input, const Shape& output,
                               DType dtype) {
  return dtype == DType::F64 ? plans_in<double>(op, input, output)
                             : plans_in<float>(op, input, output);
}

double source_ratio(const ir::Interpolate& op, std::size_t dim, int64_t in, int64_t out,
                    DType dtype) {
  return dtype == DType::F64 ? source_ratio<double>(op, dim, in, out)
                             : static_cast<double>(source_ratio<float>(op, dim, in, out));
}

std::vector<std::size_t> pass_order(const std::vector<DimPlan>& plans, bool transposed) {
  std::vector<std::size_t> order(plans.size());
  for (std::size_t k = 0; k < order.size(); ++k)
    order[k] = transposed ? plans.size() - 1 - k : k;
  std::stable_partition(order.begin(), order.end(), [&](std::size_t dim) {
    const DimPlan& plan = plans[dim];
    return transposed ? plan.in < plan.out : plan.out < plan.in;
  });
  return order;
}

}  // namespace ember::ndarray::interpolate
