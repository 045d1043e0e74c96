// The Highway target of the formulas (ir/formulas.h): a value is a vector of T, and each
// primitive is one Highway operation or one of flex's own vector functions (tanh by the rational of
// rational_tanh.h, log1p of either sign). Valid inside each primitive's range: the loops hand NaN,
// infinities and lanes beyond an exp's range to the reference kernel. Included once per target by
// hwy/foreach_target.h, hence the toggling include guard.
#if defined(EMBER_FLEX_SIMD_MATH_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EMBER_FLEX_SIMD_MATH_INL_H_
#undef EMBER_FLEX_SIMD_MATH_INL_H_
#else
#define EMBER_FLEX_SIMD_MATH_INL_H_
#endif

#include <hwy/highway.h>

#include <hwy/contrib/math/math-inl.h>

#include <cmath>
#include <numbers>
#include <utility>

#include "backends/flex/rational_tanh.h"
#include "ember/error.h"
#include "ir/activation_constants.h"
#include "ir/ops.h"

HWY_BEFORE_NAMESPACE();
namespace ember::flex::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The formulas compiled for this target's instructions (an inline function or template defined
// outside this region could not inline the target's intrinsics).
namespace formula {
#include "ir/formulas-inl.h"
}  // namespace formula

/// log1p on (-1, max]: Highway's Log1p takes [0, max], so a negative x uses
/// log1p(x) = -log1p(-x / (1 + x)).
template <class D, class V>
HWY_INLINE V Log1pAnySign(D d, V x) {
  const auto negative = hn::Lt(x, hn::Zero(d));
  if (hn::AllFalse(d, negative)) return hn::Log1p(d, x);  // softplus's case, without a division
  const auto y = hn::IfThenElse(negative, hn::Div(hn::Neg(x), hn::Add(hn::Set(d, 1), x)), x);
  const auto r = hn::Log1p(d, y);
  return hn::IfThenElse(negative, hn::Neg(r), r);
}

/// tanh in f32 by the rational of rational_tanh.h: within 5.6 ulp of the exact value over every
/// finite float (with FMA; tests/flex/tanh_test.cpp), at 60% of the cost of Highway's Tanh (an
/// Expm1 and a division). From |x| = kSaturates on tanh rounds to +-1, which the clamped rational
/// gives exactly; below kTiny it rounds to x itself. In between the result is clamped to [-1, 1],
/// which the rational overshoots by an ulp near 9. jit_program.cpp emits the same operations in the
/// same order.
template <class D, class V>
HWY_INLINE V RationalTanh(D d, V x) {
  using namespace ::ember::flex::rational_tanh;
  const auto c = [d](float value) { return hn::Set(d, value); };
  const auto one = c(1.0f);
  // Clamped so that the powers of x stay finite on lanes whose result is not used.
  const auto clamped = hn::Min(hn::Max(x, c(-kSaturates)), c(kSaturates));
  const auto y = hn::Mul(clamped, clamped);
  // Both polynomials in y = x^2 by Estrin's scheme: a short dependency chain, so that the loop
  // is not bound by the latency of a long one.
  const auto y2 = hn::Mul(y, y);
  const auto y4 = hn::Mul(y2, y2);
  const auto p0 = hn::MulAdd(c(kP[0]), y, c(kP[1]));
  const auto p1 = hn::MulAdd(c(kP[2]), y, c(kP[3]));
  const auto p2 = hn::MulAdd(c(kP[4]), y, c(kP[5]));
  const auto p3 = hn::MulAdd(c(kP[6]), y2, p2);
  const auto p = hn::MulAdd(p3, y4, hn::MulAdd(p1, y2, p0));
  const auto q0 = hn::MulAdd(c(kQ[0]), y, c(kQ[1]));
  const auto q1 = hn::MulAdd(c(kQ[2]), y, c(kQ[3]));
  const auto q = hn::MulAdd(q1, y2, q0);
  const auto tanh = hn::Min(hn::Max(hn::Div(hn::Mul(p, clamped), q), hn::Neg(one)), one);
  // Every |x| >= kSaturates, infinities included, was clamped to +-kSaturates, where the
  // rational gives +-1 exactly: no select is needed for them (tests/flex/tanh_test.cpp).
  return hn::IfThenElse(hn::Lt(hn::Abs(x), c(kTiny)), x, tanh);
}

/// The formulas' primitives on vectors of d's lane type.
template <class D>
struct HwyMath {
  using T = hn::TFromD<D>;
  using Value = hn::Vec<D>;
  using Mask = hn::Mask<D>;
  static constexpr bool kIsF32 = sizeof(T) == 4;

  D d;

  HWY_INLINE Value constant(double c) const { return hn::Set(d, static_cast<T>(c)); }
  HWY_INLINE Value lowest() const { return hn::Set(d, hwy::LowestValue<T>()); }

  HWY_INLINE Value add(Value a, Value b) const { return hn::Add(a, b); }
  HWY_INLINE Value sub(Value a, Value b) const { return hn::Sub(a, b); }
  HWY_INLINE Value mul(Value a, Value b) const { return hn::Mul(a, b); }
  HWY_INLINE Value div(Value a, Value b) const { return hn::Div(a, b); }
  HWY_INLINE Value mul_add(Value a, Value b, Value c) const { return hn::MulAdd(a, b, c); }
  // The formulas' NaN rule for min and max holds on the lanes computed here: NaN lanes take the
  // reference kernel.
  HWY_INLINE Value min(Value a, Value b) const { return hn::Min(a, b); }
  HWY_INLINE Value max(Value a, Value b) const { return hn::Max(a, b); }

  HWY_INLINE Value neg(Value x) const { return hn::Neg(x); }
  HWY_INLINE Value abs(Value x) const { return hn::Abs(x); }
  HWY_INLINE Value exp(Value x) const { return hn::Exp(d, x); }
  HWY_INLINE Value expm1(Value x) const { return hn::Expm1(d, x); }
  HWY_INLINE Value log1p(Value x) const { return Log1pAnySign(d, x); }
  HWY_INLINE Value tanh(Value x) const {
    if constexpr (kIsF32) {
      return RationalTanh(d, x);
    } else {
      return hn::Tanh(d, x);
    }
  }
  /// f32 by the formulas' rational approximation; f64, which it does not fit, lane by lane by the
  /// standard library.
  HWY_INLINE Value erfc(Value x) const {
    if constexpr (kIsF32) {
      return formula::erfc_rational(*this, x);
    } else {
      HWY_ALIGN T lanes[HWY_MAX_BYTES / sizeof(T)];
      hn::Store(x, d, lanes);
      for (std::size_t i = 0; i < hn::Lanes(d); ++i)
        lanes[i] = std::erfc(lanes[i]);
      return hn::Load(d, lanes);
    }
  }

  HWY_INLINE Mask lt(Value a, Value b) const { return hn::Lt(a, b); }
  HWY_INLINE Mask le(Value a, Value b) const { return hn::Le(a, b); }
  HWY_INLINE Mask gt(Value a, Value b) const { return hn::Gt(a, b); }
  HWY_INLINE Mask ge(Value a, Value b) const { return hn::Ge(a, b); }
  HWY_INLINE Mask is_nan(Value x) const { return hn::IsNaN(x); }
  HWY_INLINE Value select(Mask m, Value a, Value b) const { return hn::IfThenElse(m, a, b); }
};

}  // namespace ember::flex::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // EMBER_FLEX_SIMD_MATH_INL_H_
