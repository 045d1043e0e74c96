// Highway kernels of simd.h: activations, in the element type and in ndarray's formulas (the
// stable forms of ndarray/activation.cpp). NaN and infinite lanes take the reference kernel.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/flex/simd_activation.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <hwy/contrib/math/math-inl.h>

#include <cmath>
#include <limits>
#include <numbers>

#include "backends/flex/gelu_erf.h"
#include "backends/flex/reference.h"
#include "backends/flex/simd.h"
#include "backends/flex/simd_map-inl.h"
#include "ir/activation_constants.h"

HWY_BEFORE_NAMESPACE();
namespace ember::flex::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using ir::ActivationOp;

/// Beyond this magnitude x^3 could overflow in GELU's tanh form: such lanes take the reference.
template <typename T>
constexpr T kCubeSafe = sizeof(T) == 4 ? T(simd::kGeluTanhCubeSafe) : T(1e100);

/// 1 / (1 + exp(-x)) for x >= 0, e / (1 + e) with e = exp(x) otherwise: no exp of a positive
/// argument.
template <class D, class V>
HWY_INLINE V Sigmoid(D d, V x) {
  const auto one = hn::Set(d, 1);
  const auto e = hn::Exp(d, hn::Neg(hn::Abs(x)));
  return hn::IfThenElse(hn::Ge(x, hn::Zero(d)), hn::Div(one, hn::Add(one, e)),
                        hn::Div(e, hn::Add(one, e)));
}

/// log1p(exp(beta x)) / beta, or x where beta x exceeds the threshold.
template <class D, class V>
HWY_INLINE V Softplus(D d, V x, V beta) {
  using T = hn::TFromD<D>;
  const auto threshold = hn::Set(d, static_cast<T>(ir::kSoftplusThreshold));
  const auto scaled = hn::Mul(beta, x);
  // Clamped so that Exp stays inside its valid range on lanes whose result is not used.
  const auto bounded = hn::Max(hn::Min(scaled, threshold), hn::Set(d, hwy::LowestValue<T>()));
  const auto soft = hn::Div(hn::Log1p(d, hn::Exp(d, bounded)), beta);
  return hn::IfThenElse(hn::Gt(scaled, threshold), x, soft);
}

/// x for x > 0, else alpha (exp(x / divisor) - 1).
template <class D, class V>
HWY_INLINE V ExponentialUnit(D d, V x, V alpha, V divisor) {
  using T = hn::TFromD<D>;
  const auto argument = hn::Max(hn::Div(x, divisor), hn::Set(d, hwy::LowestValue<T>()));
  return hn::IfThenElse(hn::Gt(x, hn::Zero(d)), x, hn::Mul(alpha, hn::Expm1(d, argument)));
}

/// relu6(x + 3) / 6 as ndarray writes it: 0 below -3, 1 above 3, x / 6 + 1/2 between.
template <class D, class V>
HWY_INLINE V HardSigmoid(D d, V x) {
  const auto linear = hn::Add(hn::Div(x, hn::Set(d, 6)), hn::Set(d, 0.5));
  return hn::IfThenElse(hn::Le(x, hn::Set(d, -3)), hn::Zero(d),
                        hn::IfThenElse(hn::Ge(x, hn::Set(d, 3)), hn::Set(d, 1), linear));
}

template <class D, class V>
HWY_INLINE V GeluTanh(D d, V x) {
  using T = hn::TFromD<D>;
  const auto k = hn::Set(d, std::numbers::sqrt2_v<T> * std::numbers::inv_sqrtpi_v<T>);
  const auto cube =
      hn::Mul(hn::Mul(hn::Mul(hn::Set(d, static_cast<T>(ir::kGeluTanhCubic)), x), x), x);
  const auto t = hn::Tanh(d, hn::Mul(k, hn::Add(x, cube)));
  return hn::Mul(hn::Mul(hn::Set(d, 0.5), x), hn::Add(hn::Set(d, 1), t));
}

/// x / 2 (1 + erf(x / sqrt 2)) = x / 2 erfc(-x / sqrt 2), f32 only: erfc(w) for w >= 0 by
/// Numerical Recipes' erfcc (relative error below 1.2e-7 everywhere, so tiny negative outputs
/// keep their precision), and erfc(-w) = 2 - erfc(w).
template <class D, class V>
HWY_INLINE V Gelu(D d, V x) {
  using namespace ::ember::flex::gelu_erf;
  const auto one = hn::Set(d, 1.0f);
  const auto w =
      hn::Min(hn::Mul(hn::Abs(x), hn::Set(d, std::numbers::sqrt2_v<float> / 2)), hn::Set(d, kMaxW));
  const auto t = hn::Div(one, hn::MulAdd(hn::Set(d, 0.5f), w, one));
  auto poly = hn::Set(d, kPolyStart);
  for (const float c : kPoly)
    poly = hn::MulAdd(poly, t, hn::Set(d, c));
  const auto erfc_w = hn::Mul(t, hn::Exp(d, hn::Sub(poly, hn::Mul(w, w))));
  const auto one_plus_erf =
      hn::IfThenElse(hn::Lt(x, hn::Zero(d)), erfc_w, hn::Sub(hn::Set(d, 2.0f), erfc_w));
  return hn::Mul(hn::Mul(hn::Set(d, 0.5f), x), one_plus_erf);
}

template <typename T>
void Activation(const ir::Activation& op, const T* x, T* out, int64_t n) {
  const T lowest = hwy::LowestValue<T>();
  const T max = hwy::HighestValue<T>();
  const auto map = [&](const auto& vec) {
    MapChecked(x, out, n, lowest, max, vec, [&](T v) { return reference_activation(op, v); });
  };
  const T alpha = static_cast<T>(op.alpha);
  const T beta = static_cast<T>(op.beta);
  switch (op.op) {
    case ActivationOp::Relu:
      return map([](auto d, auto v)
                     HWY_ATTR { return hn::IfThenElse(hn::Lt(v, hn::Zero(d)), hn::Zero(d), v); });
    case ActivationOp::LeakyRelu:
      return map([alpha](auto d, auto v) HWY_ATTR {
        return hn::IfThenElse(hn::Gt(v, hn::Zero(d)), v, hn::Mul(hn::Set(d, alpha), v));
      });
    case ActivationOp::Gelu:
      if constexpr (sizeof(T) == 4) {
        return map([](auto d, auto v) HWY_ATTR { return Gelu(d, v); });
      }
      return;  // f64: not covered
    case ActivationOp::GeluTanh:
      return MapChecked(
          x, out, n, -kCubeSafe<T>, kCubeSafe<T>,
          [](auto d, auto v) HWY_ATTR { return GeluTanh(d, v); },
          [&](T v) { return reference_activation(op, v); });
    case ActivationOp::Sigmoid:
      return map([](auto d, auto v) HWY_ATTR { return Sigmoid(d, v); });
    case ActivationOp::LogSigmoid:
      return map([](auto d, auto v)
                     HWY_ATTR { return hn::Neg(Softplus(d, hn::Neg(v), hn::Set(d, 1))); });
    case ActivationOp::Silu:
      return map([](auto d, auto v) HWY_ATTR { return hn::Mul(v, Sigmoid(d, v)); });
    case ActivationOp::Softplus:
      return map([beta](auto d, auto v) HWY_ATTR { return Softplus(d, v, hn::Set(d, beta)); });
    case ActivationOp::Mish:
      return map([](auto d, auto v)
                     HWY_ATTR { return hn::Mul(v, hn::Tanh(d, Softplus(d, v, hn::Set(d, 1)))); });
    case ActivationOp::Elu:
      return map([alpha](auto d, auto v)
                     HWY_ATTR { return ExponentialUnit(d, v, hn::Set(d, alpha), hn::Set(d, 1)); });
    case ActivationOp::Selu:
      return map([](auto d, auto v) HWY_ATTR {
        const auto unit =
            ExponentialUnit(d, v, hn::Set(d, static_cast<T>(ir::kSeluAlpha)), hn::Set(d, 1));
        return hn::Mul(hn::Set(d, static_cast<T>(ir::kSeluScale)), unit);
      });
    case ActivationOp::Celu:
      return map([alpha](auto d, auto v) HWY_ATTR {
        return ExponentialUnit(d, v, hn::Set(d, alpha), hn::Set(d, alpha));
      });
    case ActivationOp::HardSigmoid:
      return map([](auto d, auto v) HWY_ATTR { return HardSigmoid(d, v); });
    case ActivationOp::HardSwish:
      return map([](auto d, auto v) HWY_ATTR { return hn::Mul(v, HardSigmoid(d, v)); });
  }
}

void ActivationF32(const ir::Activation& op, const float* x, float* out, int64_t n) {
  Activation(op, x, out, n);
}
void ActivationF64(const ir::Activation& op, const double* x, double* out, int64_t n) {
  Activation(op, x, out, n);
}

}  // namespace ember::flex::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ember::flex::simd {

HWY_EXPORT(ActivationF32);
HWY_EXPORT(ActivationF64);

bool has_activation(const ir::Activation& op, bool is_f64) {
  // Every enumerator, no default: a new activation does not compile until it says.
  switch (op.op) {
    case ir::ActivationOp::Gelu:
      return !is_f64;
    case ir::ActivationOp::Celu:
      return op.alpha != 0.0;  // alpha 0 divides by zero: left to the reference
    case ir::ActivationOp::Relu:
    case ir::ActivationOp::LeakyRelu:
    case ir::ActivationOp::GeluTanh:
    case ir::ActivationOp::Sigmoid:
    case ir::ActivationOp::LogSigmoid:
    case ir::ActivationOp::Silu:
    case ir::ActivationOp::Softplus:
    case ir::ActivationOp::Mish:
    case ir::ActivationOp::Elu:
    case ir::ActivationOp::Selu:
    case ir::ActivationOp::HardSigmoid:
    case ir::ActivationOp::HardSwish:
      return true;
  }
  return false;  // not an enumerator
}

void activation(const ir::Activation& op, const float* x, float* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(ActivationF32)(op, x, out, n);
}
void activation(const ir::Activation& op, const double* x, double* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(ActivationF64)(op, x, out, n);
}

}  // namespace ember::flex::simd
#endif  // HWY_ONCE
