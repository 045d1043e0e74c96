// Activations and softmax. Elements are computed in compute_t (f32 for f16/bf16, f32 for f32,
// f64 for f64): activations by their formulas (ir/formulas.h), softmax with the lane's maximum
// subtracted.
#include <cmath>
#include <limits>
#include <span>

#include "backends/ndarray/element.h"
#include "backends/ndarray/kernels.h"
#include "backends/ndarray/strided_index.h"
#include "ir/formulas.h"
#include "ir/scalar_math.h"

namespace ember::ndarray {
namespace {

/// op of x by its formula (ir/formulas.h) in F.
template <typename F>
F activation(const ir::Activation& op, F x) {
  const auto parameter = [&] { return static_cast<F>(ir::parameter_of(op)); };
  return formula::activation(formula::ScalarMath<F>{}, op.op, x, parameter);
}

/// The maximum of lane (NaN when the lane holds one), in compute_t.
template <typename T>
compute_t<T> lane_max(const Lane<T>& lane) {
  auto max = -std::numeric_limits<compute_t<T>>::infinity();
  for (int64_t k = 0; k < lane.size(); ++k) {
    const auto v = load(lane[k]);
    if (v > max || std::isnan(v)) max = v;
    if (std::isnan(max)) break;
  }
  return max;
}

/// Writes softmax (or log-softmax) of lane into out: exp(x - max) / sum, or x - max - log(sum),
/// with sum = sum(exp(x - max)).
template <typename T>
void softmax_lane(const Lane<T>& lane, bool log, std::span<T> out, const Lanes& lanes,
                  int64_t lane_index) {
  using F = compute_t<T>;
  const F max = lane_max(lane);
  F sum{0};
  for (int64_t k = 0; k < lane.size(); ++k)
    sum += std::exp(load(lane[k]) - max);
  const F log_sum = std::log(sum);
  for (int64_t k = 0; k < lane.size(); ++k) {
    const F shifted = load(lane[k]) - max;
    out[lanes.offset(lane_index, k)] = store<T>(log ? shifted - log_sum : std::exp(shifted) / sum);
  }
}

}  // namespace

TensorData run(const ir::Activation& op, Inputs in, Outputs out) {
  const TensorData& x = *in[0];
  TensorData result = zeros_like(out[0]);
  visit_dtype(x.dtype(), [&]<typename T>() {
    if constexpr (is_float_v<T>) {
      auto dst = result.as_mut<T>();
      const auto src = x.as<T>();
      for (std::size_t i = 0; i < src.size(); ++i)
        dst[i] = store<T>(activation(op, load(src[i])));
    } else {
      throw_unsupported(op, dtype_of<T>());
    }
  });
  return result;
}

TensorData run(const ir::Softmax& op, Inputs in, Outputs out) {
  const TensorData& x = *in[0];
  const Lanes lanes = Lanes::along(x.shape(), op.dim);
  TensorData result = zeros_like(out[0]);
  visit_dtype(x.dtype(), [&]<typename T>() {
    if constexpr (is_float_v<T>) {
      const auto dst = result.as_mut<T>();
      for (int64_t lane = 0; lane < lanes.count(); ++lane)
        softmax_lane(Lane<T>(x.as<T>(), lanes, lane), op.log, dst, lanes, lane);
    } else {
      throw_unsupported(op, dtype_of<T>());
    }
  });
  return result;
}

}  // namespace ember::ndarray
