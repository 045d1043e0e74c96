// Per-target loops shared by the Highway kernels (simd_*.cpp): included once per target by
// hwy/foreach_target.h, hence the toggling include guard.
#if defined(EMBER_FLEX_SIMD_MAP_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EMBER_FLEX_SIMD_MAP_INL_H_
#undef EMBER_FLEX_SIMD_MAP_INL_H_
#else
#define EMBER_FLEX_SIMD_MAP_INL_H_
#endif

#include <hwy/highway.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

HWY_BEFORE_NAMESPACE();
namespace ember::flex::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

/// The most lanes of T any compiled target has.
template <typename T>
inline constexpr int64_t kMaxLanes = HWY_MAX_BYTES / sizeof(T);

/// out[i] = vec(d, x[i]) computed a vector at a time (the tail in a zero-padded vector), then
/// out[i] = scalar(x[i]) for every lane whose x lies outside [lo, hi] (NaN included): the range
/// where vec is valid. x and out may be the same array.
template <typename T, class VecFn, class ScalarFn>
HWY_INLINE void MapChecked(const T* x, T* out, int64_t n, T lo, T hi, const VecFn& vec,
                           const ScalarFn& scalar) {
  const hn::ScalableTag<T> d;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto low = hn::Set(d, lo);
  const auto high = hn::Set(d, hi);
  HWY_ALIGN T input[kMaxLanes<T>] = {};
  HWY_ALIGN T result[kMaxLanes<T>];
  for (int64_t i = 0; i < n; i += lanes) {
    const int64_t count = std::min(lanes, n - i);
    const bool whole = count == lanes;
    if (!whole) std::copy(x + i, x + n, input);
    const auto v = whole ? hn::LoadU(d, x + i) : hn::Load(d, input);
    const bool inside = hn::AllTrue(d, hn::And(hn::Ge(v, low), hn::Le(v, high)));
    if (whole && inside) {
      hn::StoreU(vec(d, v), d, out + i);
      continue;
    }
    hn::Store(v, d, input);
    hn::Store(vec(d, v), d, result);
    for (int64_t j = 0; j < count; ++j) {
      const T value = input[j];
      out[i + j] = value >= lo && value <= hi ? result[j] : scalar(value);
    }
    std::fill(input, input + lanes, T{0});  // the tail's padding lanes stay zero
  }
}

/// One operand of a binary loop: a broadcast value (kBroadcast) or an array.
template <bool kBroadcast, class D, typename T>
HWY_INLINE auto LoadOperand(D d, const T* p, int64_t i) {
  if constexpr (kBroadcast) {
    return hn::Set(d, *p);
  } else {
    return hn::LoadU(d, p + i);
  }
}

/// Calls body(i, va, vb) for each whole vector of a binary loop and tail(i) for each element
/// after them, with a and b loaded as arrays or broadcast values.
template <bool kABroadcast, bool kBBroadcast, typename T, class Body, class Tail>
HWY_INLINE void ZipSteps(const T* a, const T* b, int64_t n, const Body& body, const Tail& tail) {
  const hn::ScalableTag<T> d;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    body(d, i, LoadOperand<kABroadcast>(d, a, i), LoadOperand<kBBroadcast>(d, b, i));
  }
  for (; i < n; ++i)
    tail(i);
}

/// ZipSteps for steps known at run time (each 0 or 1).
template <typename T, class Body, class Tail>
HWY_INLINE void Zip(const T* a, int64_t a_step, const T* b, int64_t b_step, int64_t n,
                    const Body& body, const Tail& tail) {
  if (a_step == 0 && b_step == 0) return ZipSteps<true, true>(a, b, n, body, tail);
  if (a_step == 0) return ZipSteps<true, false>(a, b, n, body, tail);
  if (b_step == 0) return ZipSteps<false, true>(a, b, n, body, tail);
  ZipSteps<false, false>(a, b, n, body, tail);
}

/// out[i] = vec(d, i) a vector at a time and scalar(i) for the rest; with kStream, through
/// streaming stores from the first vector-aligned element of out.
template <bool kStream, typename T, class VecFn, class ScalarFn>
HWY_INLINE void WriteRow(T* out, int64_t n, const VecFn& vec, const ScalarFn& scalar) {
  const hn::ScalableTag<T> d;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  if constexpr (kStream) {
    const auto misaligned = reinterpret_cast<uintptr_t>(out) % (lanes * sizeof(T)) / sizeof(T);
    const int64_t head =
        std::min(n, misaligned == 0 ? 0 : lanes - static_cast<int64_t>(misaligned));
    for (; i < head; ++i)
      out[i] = scalar(i);
  }
  for (; i + lanes <= n; i += lanes) {
    if constexpr (kStream) {
      hn::Stream(vec(d, i), d, out + i);
    } else {
      hn::StoreU(vec(d, i), d, out + i);
    }
  }
  for (; i < n; ++i)
    out[i] = scalar(i);
}

}  // namespace ember::flex::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // EMBER_FLEX_SIMD_MAP_INL_H_
