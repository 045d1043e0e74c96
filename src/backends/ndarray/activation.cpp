// Activations and softmax. Elements are computed in compute_t (f32 for f16/bf16, f32 for f32,
// f64 for f64) in numerically stable forms: no exp of a large positive argument, softmax with the
// lane's maximum subtracted.
#include <cmath>
#include <limits>
#include <numbers>
#include <span>

#include "backends/ndarray/element.h"
#include "backends/ndarray/kernels.h"
#include "backends/ndarray/strided_index.h"
#include "ir/activation_constants.h"

namespace ember::ndarray {
namespace {

using ir::ActivationOp;
using ir::kGeluTanhCubic;
using ir::kSeluAlpha;
using ir::kSeluScale;
using ir::kSoftplusThreshold;

/// 1 / (1 + exp(-x)), without exp of a large positive argument.
template <typename F>
F sigmoid(F x) {
  if (x >= F{0}) return F{1} / (F{1} + std::exp(-x));
  const F e = std::exp(x);
  return e / (F{1} + e);
}

/// log(1 + exp(beta * x)) / beta, linear where beta * x exceeds the threshold (PyTorch).
template <typename F>
F softplus(F x, F beta) {
  const F scaled = beta * x;
  if (scaled > F(kSoftplusThreshold)) return x;
  return std::log1p(std::exp(scaled)) / beta;
}

/// x for x > 0, else alpha * (exp(x / divisor) - 1): elu (divisor 1), celu (divisor alpha).
template <typename F>
F exponential_unit(F x, F alpha, F divisor) {
  return x > F{0} ? x : alpha * std::expm1(x / divisor);
}

/// relu6(x + 3) / 6, written so that NaN propagates.
template <typename F>
F hard_sigmoid(F x) {
  if (x <= F{-3}) return F{0};
  if (x >= F{3}) return F{1};
  return x / F{6} + F{0.5};
}

template <typename F>
F gelu_tanh(F x) {
  const F k = std::numbers::sqrt2_v<F> * std::numbers::inv_sqrtpi_v<F>;  // sqrt(2 / pi)
  return F{0.5} * x * (F{1} + std::tanh(k * (x + F(kGeluTanhCubic) * x * x * x)));
}

template <typename F>
F activation(const ir::Activation& op, F x) {
  const F alpha = static_cast<F>(op.alpha);
  switch (op.op) {
    case ActivationOp::Relu:
      return x < F{0} ? F{0} : x;  // NaN propagates
    case ActivationOp::LeakyRelu:
      return x > F{0} ? x : alpha * x;
    case ActivationOp::Gelu:
      return F{0.5} * x * (F{1} + std::erf(x * std::numbers::sqrt2_v<F> / F{2}));
    case ActivationOp::GeluTanh:
      return gelu_tanh(x);
    case ActivationOp::Sigmoid:
      return sigmoid(x);
    case ActivationOp::LogSigmoid:
      return -softplus(-x, F{1});
    case ActivationOp::Silu:
      return x * sigmoid(x);
    case ActivationOp::Softplus:
      return softplus(x, static_cast<F>(op.beta));
    case ActivationOp::Mish:
      return x * std::tanh(softplus(x, F{1}));
    case ActivationOp::Elu:
      return exponential_unit(x, alpha, F{1});
    case ActivationOp::Selu:
      return F(kSeluScale) * exponential_unit(x, F(kSeluAlpha), F{1});
    case ActivationOp::Celu:
      return exponential_unit(x, alpha, alpha);
    case ActivationOp::HardSigmoid:
      return hard_sigmoid(x);
    case ActivationOp::HardSwish:
      return x * hard_sigmoid(x);
  }
  // Unreachable after ir::infer, which rejects unknown enumerators.
  throw InvalidArgument("[" + ir::name(op) + "] unknown activation");
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
