// The Highway target of the formulas (ir/formulas.h): a value is a vector of T, and each
// primitive is one Highway operation or one of flex's own vector functions (tanh by the rational of
// rational_tanh.h, log1p of either sign); MapFormula, the loop of every formula, gives the lanes a
// primitive cannot compute to the reference formulas. Included once per target by
// hwy/foreach_target.h, hence the toggling include guard.
#if defined(EMBER_FLEX_SIMD_MATH_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EMBER_FLEX_SIMD_MATH_INL_H_
#undef EMBER_FLEX_SIMD_MATH_INL_H_
#else
#define EMBER_FLEX_SIMD_MATH_INL_H_
#endif

#include <hwy/highway.h>

#include <hwy/contrib/math/math-inl.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <utility>

#include "backends/flex/highway_exp.h"
#include "backends/flex/rational_tanh.h"
#include "ember/error.h"
#include "ir/activation_constants.h"
#include "ir/ops.h"

// Whether this target's Min and Max are x86's minps and maxps (not an emulation).
#undef EMBER_MINPS_ORDER
#if HWY_ARCH_X86 && HWY_TARGET != HWY_EMU128 && HWY_TARGET != HWY_SCALAR
#define EMBER_MINPS_ORDER 1
#else
#define EMBER_MINPS_ORDER 0
#endif

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
  // rational gives +-1 exactly: no select is needed for them (tests/flex/tanh_test.cpp). A NaN
  // lane, which the clamping lost, gives x (not |x| >= kTiny), as the JIT's.
  return hn::IfThenElse(hn::Not(hn::Ge(hn::Abs(x), c(kTiny))), x, tanh);
}

/// The formulas' primitives on vectors of d's lane type. A primitive valid on part of its inputs
/// only (Highway's Exp up to 88, Log of normal positive values, Sin and Cos up to 39000, ...)
/// clears the lanes outside that part (NaN among them) from `valid`: MapFormula
/// computes those lanes again by the reference formulas, so that they come out exactly as
/// ndarray's. The flags are conservative: a lane whose flagged value a select then drops is
/// computed again all the same.
template <class D>
struct HwyMath {
  using T = hn::TFromD<D>;
  using Value = hn::Vec<D>;
  using Mask = hn::Mask<D>;
  static constexpr bool kIsF32 = sizeof(T) == 4;
  /// Highway's Exp and Expm1 are valid up to this.
  static constexpr T kExpMax = kIsF32 ? T(highway_exp::kValidMax) : T(706);
  /// Highway's Sin and Cos are valid on [-kTrigMax, kTrigMax].
  static constexpr T kTrigMax = T(39000);

  explicit HwyMath(D d) : d(d), valid(hn::FirstN(d, hn::Lanes(d))) {}

  D d;
  mutable Mask valid;  ///< false where a primitive computed a lane outside its valid range

  HWY_INLINE Value constant(double c) const { return hn::Set(d, static_cast<T>(c)); }
  HWY_INLINE Value lowest() const { return hn::Set(d, hwy::LowestValue<T>()); }

  HWY_INLINE Value add(Value a, Value b) const { return hn::Add(a, b); }
  HWY_INLINE Value sub(Value a, Value b) const { return hn::Sub(a, b); }
  HWY_INLINE Value mul(Value a, Value b) const { return hn::Mul(a, b); }
  HWY_INLINE Value div(Value a, Value b) const { return hn::Div(a, b); }
  HWY_INLINE Value mul_add(Value a, Value b, Value c) const { return hn::MulAdd(a, b, c); }
  /// b < a ? b : a and a < b ? b : a, as formulas.h defines them: on the x86 vector targets
  /// Min(b, a) and Max(b, a) exactly (minps and maxps give their second operand where either is
  /// NaN or the two are equal); elsewhere (the emulated targets too) a select.
  HWY_INLINE Value min(Value a, Value b) const {
#if EMBER_MINPS_ORDER
    return hn::Min(b, a);
#else
    return hn::IfThenElse(hn::Lt(b, a), b, a);
#endif
  }
  HWY_INLINE Value max(Value a, Value b) const {
#if EMBER_MINPS_ORDER
    return hn::Max(b, a);
#else
    return hn::IfThenElse(hn::Lt(a, b), b, a);
#endif
  }
  HWY_INLINE Value pow(Value a, Value b) const {
    return lanewise(a, b, [](T u, T v) { return std::pow(u, v); });
  }
  HWY_INLINE Value fmod(Value a, Value b) const {
    return lanewise(a, b, [](T u, T v) { return std::fmod(u, v); });
  }

  HWY_INLINE Value neg(Value x) const {
    return hn::Neg(x);
  }
  HWY_INLINE Value abs(Value x) const {
    return hn::Abs(x);
  }
  HWY_INLINE Value sqrt(Value x) const {
    return hn::Sqrt(x);
  }
  HWY_INLINE Value floor(Value x) const {
    return hn::Floor(x);
  }
  HWY_INLINE Value ceil(Value x) const {
    return hn::Ceil(x);
  }
  HWY_INLINE Value round(Value x) const {
    return hn::Round(x);
  }  // half to even
  /// frexp from the bits, on normal lanes (the others flagged): the fraction keeps x's sign and
  /// mantissa under the exponent of 1/2, the exponent is the biased one less the bias's and 1.
  HWY_INLINE Value frexp_fraction(Value x) const {
    keep_normal(x);
    const hn::RebindToUnsigned<D> du;
    const auto kept = hn::Set(du, hwy::SignMask<T>() | hwy::MantissaMask<T>());
    return hn::BitCast(
        d, hn::Or(hn::And(hn::BitCast(du, x), kept), hn::BitCast(du, hn::Set(d, T(0.5)))));
  }
  HWY_INLINE Value frexp_exponent(Value x) const {
    keep_normal(x);
    const hn::RebindToUnsigned<D> du;
    const hn::RebindToSigned<D> di;
    const auto biased =
        hn::And(hn::ShiftRight<hwy::MantissaBits<T>()>(hn::BitCast(du, x)),
                hn::Set(du, static_cast<hwy::MakeUnsigned<T>>(hwy::MaxExponentField<T>())));
    // The bias (127 for f32) less 1: frexp's fraction is in [1/2, 1), not [1, 2).
    const auto exponent =
        hn::Sub(hn::BitCast(di, biased), hn::Set(di, hwy::MaxExponentField<T>() / 2 - 1));
    return hn::ConvertTo(d, exponent);
  }
  // Exp and Expm1 give 0 and -1 from -inf (below their lower bound): only NaN and what exceeds
  // kExpMax are left to the reference.
  HWY_INLINE Value exp(Value x) const {
    keep(hn::Le(x, hn::Set(d, kExpMax)));
    return hn::Exp(d, x);
  }
  HWY_INLINE Value expm1(Value x) const {
    keep(hn::Le(x, hn::Set(d, kExpMax)));
    return hn::Expm1(d, x);
  }
  HWY_INLINE Value log(Value x) const {
    keep_inside(x, std::numeric_limits<T>::min(), hwy::HighestValue<T>());
    return hn::Log(d, x);
  }
  HWY_INLINE Value log1p(Value x) const {
    keep_inside(x, std::nextafter(T{-1}, T{0}), hwy::HighestValue<T>());
    return Log1pAnySign(d, x);
  }
  HWY_INLINE Value sin(Value x) const {
    keep(hn::Le(hn::Abs(x), hn::Set(d, kTrigMax)));
    return hn::Sin(d, x);
  }
  HWY_INLINE Value cos(Value x) const {
    keep(hn::Le(hn::Abs(x), hn::Set(d, kTrigMax)));
    return hn::Cos(d, x);
  }
  HWY_INLINE Value tan(Value x) const {
    return lanewise(x, [](T v) { return std::tan(v); });
  }
  /// f32 by the rational of rational_tanh.h (every input, infinities and NaN included), f64 by
  /// Highway's Tanh (finite inputs).
  HWY_INLINE Value tanh(Value x) const {
    if constexpr (kIsF32) {
      return RationalTanh(d, x);
    } else {
      keep(hn::IsFinite(x));
      return hn::Tanh(d, x);
    }
  }
  HWY_INLINE Value erf(Value x) const {
    return lanewise(x, [](T v) { return std::erf(v); });
  }
  /// f32 by the formulas' rational approximation; f64, which it does not fit, lane by lane by the
  /// standard library.
  HWY_INLINE Value erfc(Value x) const {
    if constexpr (kIsF32) {
      return formula::erfc_rational(*this, x);
    } else {
      return lanewise(x, [](T v) { return std::erfc(v); });
    }
  }

  HWY_INLINE Mask lt(Value a, Value b) const {
    return hn::Lt(a, b);
  }
  HWY_INLINE Mask le(Value a, Value b) const {
    return hn::Le(a, b);
  }
  HWY_INLINE Mask gt(Value a, Value b) const {
    return hn::Gt(a, b);
  }
  HWY_INLINE Mask ge(Value a, Value b) const {
    return hn::Ge(a, b);
  }
  HWY_INLINE Mask eq(Value a, Value b) const {
    return hn::Eq(a, b);
  }
  /// C++'s !=: true where either is NaN (Highway's Ne is false there).
  HWY_INLINE Mask ne(Value a, Value b) const {
    return hn::Not(hn::Eq(a, b));
  }
  HWY_INLINE Mask is_nan(Value x) const {
    return hn::IsNaN(x);
  }
  HWY_INLINE Mask mask_and(Mask a, Mask b) const {
    return hn::And(a, b);
  }
  HWY_INLINE Mask mask_or(Mask a, Mask b) const {
    return hn::Or(a, b);
  }
  HWY_INLINE Mask mask_xor(Mask a, Mask b) const {
    return hn::Xor(a, b);
  }
  HWY_INLINE Mask mask_not(Mask a) const {
    return hn::Not(a);
  }
  HWY_INLINE Value select(Mask m, Value a, Value b) const {
    return hn::IfThenElse(m, a, b);
  }

 private:
  /// Keeps valid only the lanes where computed holds.
  HWY_INLINE void keep(Mask computed) const {
    valid = hn::And(valid, computed);
  }
  /// Keeps valid only the lanes of x inside [lo, hi] (not NaN).
  HWY_INLINE void keep_inside(Value x, T lo, T hi) const {
    keep(hn::And(hn::Ge(x, hn::Set(d, lo)), hn::Le(x, hn::Set(d, hi))));
  }
  /// Keeps valid only the lanes of x that are normal floats (neither zero, subnormal, infinite
  /// nor NaN).
  HWY_INLINE void keep_normal(Value x) const {
    keep_inside(hn::Abs(x), std::numeric_limits<T>::min(), hwy::HighestValue<T>());
  }
  /// f of each lane (the primitives Highway lacks: the standard library's, a lane at a time).
  template <class F>
  HWY_INLINE Value lanewise(Value x, const F& f) const {
    HWY_ALIGN T lanes[HWY_MAX_BYTES / sizeof(T)];
    hn::Store(x, d, lanes);
    for (std::size_t i = 0; i < hn::Lanes(d); ++i)
      lanes[i] = f(lanes[i]);
    return hn::Load(d, lanes);
  }
  template <class F>
  HWY_INLINE Value lanewise(Value a, Value b, const F& f) const {
    HWY_ALIGN T left[HWY_MAX_BYTES / sizeof(T)];
    HWY_ALIGN T right[HWY_MAX_BYTES / sizeof(T)];
    hn::Store(a, d, left);
    hn::Store(b, d, right);
    for (std::size_t i = 0; i < hn::Lanes(d); ++i)
      left[i] = f(left[i], right[i]);
    return hn::Load(d, left);
  }
};

/// out[i] = vec(m, x[i]) a vector at a time on a HwyMath m (the tail in a zero-padded vector),
/// then out[i] = scalar(x[i]) for every lane that one of m's primitives could not compute. x and
/// out may be the same array.
template <typename T, class VecFn, class ScalarFn>
HWY_INLINE void MapFormula(const T* x, T* out, int64_t n, const VecFn& vec,
                           const ScalarFn& scalar) {
  const hn::ScalableTag<T> d;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  HWY_ALIGN T input[HWY_MAX_BYTES / sizeof(T)] = {};
  HWY_ALIGN T result[HWY_MAX_BYTES / sizeof(T)];
  uint8_t valid[(HWY_MAX_BYTES / sizeof(T) + 7) / 8];
  // One target for the loop, its flags reset for each vector from a mask built once (a tiny
  // tensor's op is a few vectors: the loop's fixed costs show).
  const HwyMath<decltype(d)> m(d);
  const auto all_valid = m.valid;
  for (int64_t i = 0; i < n; i += lanes) {
    const int64_t count = std::min(lanes, n - i);
    const bool whole = count == lanes;
    if (!whole) std::copy(x + i, x + n, input);
    const auto v = whole ? hn::LoadU(d, x + i) : hn::Load(d, input);
    m.valid = all_valid;
    const auto y = vec(m, v);
    if (whole && hn::AllTrue(d, m.valid)) {
      hn::StoreU(y, d, out + i);
      continue;
    }
    hn::Store(v, d, input);
    hn::Store(y, d, result);
    hn::StoreMaskBits(d, m.valid, valid);
    for (int64_t j = 0; j < count; ++j) {
      const bool computed = (valid[j / 8] >> (j % 8)) & 1;
      out[i + j] = computed ? result[j] : scalar(input[j]);
    }
    std::fill(input, input + lanes, T{0});  // the tail's padding lanes stay zero
  }
}

}  // namespace ember::flex::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // EMBER_FLEX_SIMD_MATH_INL_H_
