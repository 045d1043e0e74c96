// bf16 and f16 lanes loaded as f32 vectors, bit for bit as bfloat16_bits.h and half_bits.h widen
// one value: the Cast kernels (simd_convert.cpp) store them, the reductions (simd_reduce.cpp) fold
// them in registers without an f32 copy. Included once per target by hwy/foreach_target.h, hence
// the toggling include guard.
#if defined(EMBER_FLEX_SIMD_WIDEN_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EMBER_FLEX_SIMD_WIDEN_INL_H_
#undef EMBER_FLEX_SIMD_WIDEN_INL_H_
#else
#define EMBER_FLEX_SIMD_WIDEN_INL_H_
#endif

#include <hwy/highway.h>

#include <cstdint>

#include "ember/float16.h"

HWY_BEFORE_NAMESPACE();
namespace ember::flex::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

/// Whether this target converts between f16 and f32 in hardware (F16C's vcvtph2ps and vcvtps2ph:
/// nearest even, exact on subnormals); Highway's emulation elsewhere truncates, so those targets
/// convert by half_bits.h's formulas.
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2 && !defined(HWY_DISABLE_F16C)
constexpr bool kF16C = true;
#else
constexpr bool kF16C = false;
#endif

/// The f32 lanes of the bf16 values at x: their bits in the upper half of each lane.
template <class DF>
HWY_INLINE hn::Vec<DF> LoadWidened(DF df, const BFloat16* x) {
  const hn::RebindToUnsigned<DF> du;
  const auto* bits = reinterpret_cast<const uint16_t*>(x);
  const auto wide = hn::PromoteTo(du, hn::LoadU(hn::Rebind<uint16_t, DF>(), bits));
  return hn::BitCast(df, hn::ShiftLeft<16>(wide));
}

/// from_half's formula, lane by lane, on f16 bits in the low half of u32 lanes: the targets
/// without F16C, and NaN payloads.
template <class DF>
HWY_INLINE hn::Vec<DF> HalfToFloatBits(DF df, hn::Vec<hn::RebindToUnsigned<DF>> h) {
  const hn::RebindToUnsigned<DF> du;
  const auto sign = hn::ShiftLeft<16>(hn::And(h, hn::Set(du, 0x8000u)));
  const auto exponent = hn::And(hn::ShiftRight<10>(h), hn::Set(du, 0x1Fu));
  const auto mantissa = hn::And(h, hn::Set(du, 0x3FFu));
  const auto shifted = hn::ShiftLeft<13>(mantissa);
  const auto normal =
      hn::Or(sign, hn::Or(hn::ShiftLeft<23>(hn::Add(exponent, hn::Set(du, 112u))), shifted));
  const auto special = hn::Or(sign, hn::Or(hn::Set(du, 0x7F80'0000u), shifted));
  const auto subnormal = hn::Mul(hn::ConvertTo(df, hn::BitCast(hn::RebindToSigned<DF>(), mantissa)),
                                 hn::Set(df, 0x1p-24f));
  const auto tiny = hn::Or(sign, hn::BitCast(du, subnormal));
  const auto result = hn::IfThenElse(hn::Eq(exponent, hn::Set(du, 0x1Fu)), special,
                                     hn::IfThenElse(hn::Eq(exponent, hn::Zero(du)), tiny, normal));
  return hn::BitCast(df, result);
}

/// The f32 lanes of the f16 values at x. F16C's vcvtph2ps is one instruction, exact on normals,
/// subnormals and infinities (DAZ does not apply to it), but it quiets a signalling NaN, which
/// from_half keeps as it is: with kKeepNaN, a vector holding a NaN takes the formula. A sum, whose
/// NaN result is quiet either way, needs no such check.
template <bool kKeepNaN, class DF>
HWY_INLINE hn::Vec<DF> LoadWidened(DF df, const Half* x) {
  const auto* bits = reinterpret_cast<const uint16_t*>(x);
  if constexpr (kF16C) {
    const auto wide = hn::PromoteTo(df, hn::LoadU(hn::Rebind<hwy::float16_t, DF>(),
                                                  reinterpret_cast<const hwy::float16_t*>(bits)));
    if (!kKeepNaN || HWY_LIKELY(hn::AllFalse(df, hn::IsNaN(wide)))) return wide;
  }
  const hn::RebindToUnsigned<DF> du;
  return HalfToFloatBits(df, hn::PromoteTo(du, hn::LoadU(hn::Rebind<uint16_t, DF>(), bits)));
}

}  // namespace ember::flex::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // EMBER_FLEX_SIMD_WIDEN_INL_H_
