// Highway kernels of simd.h: bf16 and f16 widened to f32 and f32 narrowed to them, bit for bit as
// bfloat16_bits.h and half_bits.h convert one value (round to nearest even, NaN payloads as
// BFloat16 and Half narrow them). The elementwise kernels call them on every chunk of a narrow
// tensor (narrow.h), so they run at the CPU's widest vectors rather than the baseline's.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/flex/simd_convert.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <bit>
#include <cstdint>

#include "backends/flex/bfloat16_bits.h"
#include "backends/flex/half_bits.h"
#include "backends/flex/simd.h"
#include "backends/flex/simd_widen-inl.h"

HWY_BEFORE_NAMESPACE();
namespace ember::flex::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using Df = hn::ScalableTag<float>;
using Du32 = hn::RebindToUnsigned<Df>;
using Du16 = hn::Rebind<uint16_t, Df>;

/// Calls vector(i) for each whole vector of n f32 lanes, scalar(i) for each element after them.
template <class Vector, class Scalar>
HWY_INLINE void ForLanes(int64_t n, const Vector& vector, const Scalar& scalar) {
  const auto lanes = static_cast<int64_t>(hn::Lanes(Df()));
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes)
    vector(i);
  for (; i < n; ++i)
    scalar(i);
}

void WidenBFloat16(const BFloat16* src, float* dst, int64_t n) {
  ForLanes(
      n, [&](int64_t i) HWY_ATTR { hn::StoreU(LoadWidened(Df(), src + i), Df(), dst + i); },
      [&](int64_t i) { dst[i] = from_bfloat16(src[i]); });
}

/// to_bfloat16's formula, lane by lane: the bf16 bits of f32 lanes v, in the low half of u32 lanes.
/// The NaN lanes' payloads only where there are NaNs: the branch is cheaper than their formula.
HWY_INLINE hn::Vec<Du32> BFloat16Bits(hn::Vec<Df> v) {
  const Du32 du;
  const auto bits = hn::BitCast(du, v);
  const auto truncated = hn::ShiftRight<16>(bits);
  const auto odd = hn::And(truncated, hn::Set(du, 1u));
  const auto rounded = hn::ShiftRight<16>(hn::Add(bits, hn::Add(hn::Set(du, 0x7FFFu), odd)));
  const auto is_nan = hn::IsNaN(v);
  if (HWY_LIKELY(hn::AllFalse(Df(), is_nan))) return rounded;
  const auto silent = hn::Eq(hn::And(truncated, hn::Set(du, 0x7Fu)), hn::Zero(du));
  const auto nan = hn::Or(truncated, hn::IfThenElseZero(silent, hn::Set(du, 0x40u)));
  return hn::IfThenElse(hn::RebindMask(du, is_nan), nan, rounded);
}

void NarrowBFloat16(const float* src, BFloat16* dst, int64_t n) {
  const hn::RebindToSigned<Du32> di;
  auto* out = reinterpret_cast<uint16_t*>(dst);
  ForLanes(
      n,
      [&](int64_t i) HWY_ATTR {
        const auto bits = hn::BitCast(di, BFloat16Bits(hn::LoadU(Df(), src + i)));
        hn::StoreU(hn::DemoteTo(Du16(), bits), Du16(), out + i);
      },
      [&](int64_t i) { dst[i] = to_bfloat16(src[i]); });
}

void RoundToBFloat16(float* x, int64_t n) {
  ForLanes(
      n,
      [&](int64_t i) HWY_ATTR {
        const auto bits = BFloat16Bits(hn::LoadU(Df(), x + i));
        hn::StoreU(hn::BitCast(Df(), hn::ShiftLeft<16>(bits)), Df(), x + i);
      },
      [&](int64_t i) { x[i] = from_bfloat16(to_bfloat16(x[i])); });
}

void WidenHalf(const Half* src, float* dst, int64_t n) {
  ForLanes(
      n, [&](int64_t i) HWY_ATTR { hn::StoreU(LoadWidened<true>(Df(), src + i), Df(), dst + i); },
      [&](int64_t i) { dst[i] = from_half(src[i]); });
}

/// Half(value): half_bits where it applies, Half's constructor for NaN and f16 subnormals.
inline Half HalfOf(float value) {
  const auto bits = std::bit_cast<uint32_t>(value);
  return half_needs_constructor(bits) ? Half(value) : Half::from_bits(half_bits(bits));
}

void NarrowHalf(const float* src, Half* dst, int64_t n) {
  if constexpr (!kF16C) {
    for (int64_t i = 0; i < n; ++i)
      dst[i] = HalfOf(src[i]);
  } else {
    const Df df;
    const hn::Rebind<hwy::float16_t, Df> dh;
    auto* out = reinterpret_cast<hwy::float16_t*>(dst);
    ForLanes(
        n,
        [&](int64_t i) HWY_ATTR {
          const auto v = hn::LoadU(df, src + i);
          // The hardware quiets a signalling NaN, Half keeps its payload: NaN lanes go through
          // Half's constructor.
          if (!hn::AllFalse(df, hn::IsNaN(v))) {
            for (int64_t j = 0; j < static_cast<int64_t>(hn::Lanes(df)); ++j)
              dst[i + j] = HalfOf(src[i + j]);
            return;
          }
          hn::StoreU(hn::DemoteTo(dh, v), dh, out + i);
        },
        [&](int64_t i) { dst[i] = HalfOf(src[i]); });
  }
}

void RoundToHalf(float* x, int64_t n) {
  const auto scalar = [&](int64_t i) { x[i] = from_half(HalfOf(x[i])); };
  if constexpr (!kF16C) {
    for (int64_t i = 0; i < n; ++i)
      scalar(i);
  } else {
    const Df df;
    const hn::Rebind<hwy::float16_t, Df> dh;
    ForLanes(
        n,
        [&](int64_t i) HWY_ATTR {
          const auto v = hn::LoadU(df, x + i);
          // NaN lanes keep Half's payload (NarrowHalf says why); the rest round-trip through F16C,
          // whose widening is exact.
          if (!hn::AllFalse(df, hn::IsNaN(v))) {
            for (int64_t j = 0; j < static_cast<int64_t>(hn::Lanes(df)); ++j)
              scalar(i + j);
            return;
          }
          hn::StoreU(hn::PromoteTo(df, hn::DemoteTo(dh, v)), df, x + i);
        },
        scalar);
  }
}

}  // namespace ember::flex::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ember::flex::simd {

HWY_EXPORT(WidenBFloat16);
HWY_EXPORT(NarrowBFloat16);
HWY_EXPORT(WidenHalf);
HWY_EXPORT(NarrowHalf);
HWY_EXPORT(RoundToBFloat16);
HWY_EXPORT(RoundToHalf);

void widen(const BFloat16* src, float* dst, int64_t n) {
  HWY_DYNAMIC_DISPATCH(WidenBFloat16)(src, dst, n);
}
void widen(const Half* src, float* dst, int64_t n) {
  HWY_DYNAMIC_DISPATCH(WidenHalf)(src, dst, n);
}
void narrow(const float* src, BFloat16* dst, int64_t n) {
  HWY_DYNAMIC_DISPATCH(NarrowBFloat16)(src, dst, n);
}
void narrow(const float* src, Half* dst, int64_t n) {
  HWY_DYNAMIC_DISPATCH(NarrowHalf)(src, dst, n);
}
void round_to_bfloat16(float* x, int64_t n) {
  HWY_DYNAMIC_DISPATCH(RoundToBFloat16)(x, n);
}
void round_to_half(float* x, int64_t n) {
  HWY_DYNAMIC_DISPATCH(RoundToHalf)(x, n);
}

}  // namespace ember::flex::simd
#endif  // HWY_ONCE
