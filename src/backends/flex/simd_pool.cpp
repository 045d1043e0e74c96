// Highway kernels of simd_pool.h: each lane follows one output's window, keeping its best value
// and that value's position in the plane (in an integer lane as wide as the value's).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/flex/simd_pool.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "backends/flex/simd_pool.h"

HWY_BEFORE_NAMESPACE();
namespace ember::flex::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

/// The lanes of taps at, at + stride, ... (stride 1 or 2) of row.
template <class D, typename T = hn::TFromD<D>>
HWY_INLINE hn::Vec<D> LoadTaps(D d, const T* at, int64_t stride) {
  if (stride == 1) return hn::LoadU(d, at);
  hn::Vec<D> even, odd;
  hn::LoadInterleaved2(d, at, even, odd);
  return even;
}

/// Stores positions (lanes of the value's width) as I.
template <class DI, typename I>
HWY_INLINE void StorePositions(DI di, hn::Vec<DI> positions, I* out) {
  using Lane = hn::TFromD<DI>;
  if constexpr (std::is_same_v<Lane, I>) {
    hn::StoreU(positions, di, out);
  } else {
    HWY_ALIGN Lane lanes[HWY_MAX_BYTES / sizeof(Lane)];
    hn::Store(positions, di, lanes);
    std::copy(lanes, lanes + hn::Lanes(di), out);
  }
}

/// best (at positions best_at) replaced by v (at v_at) where v is NaN or beyond it.
template <class D, class DI = hn::RebindToSigned<D>>
HWY_INLINE void Consider(hn::Vec<D> v, hn::Vec<DI> v_at, hn::Vec<D>& best, hn::Vec<DI>& best_at) {
  const auto replace = hn::Or(hn::Gt(v, best), hn::IsNaN(v));
  best = hn::IfThenElse(replace, v, best);
  best_at = hn::IfThenElse(hn::RebindMask(DI(), replace), v_at, best_at);
}

/// Whether two neighbouring taps of w come from one interleaved load (windows 2 apart).
HWY_INLINE bool is_paired(const simd::MaxRow& w) {
  return w.stride == 2 && w.step == 1;
}

/// Outputs o to o + Lanes(d) of the row.
template <class D, typename T = hn::TFromD<D>, typename I>
HWY_INLINE void MaxVector(D d, const T* plane, const simd::MaxRow& w, int64_t o, T* values,
                          I* positions) {
  const hn::RebindToSigned<D> di;
  using Lane = hn::TFromD<decltype(di)>;
  const auto iota = hn::Iota(di, 0);
  const auto lane_offsets = w.stride == 1 ? iota : hn::Add(iota, iota);
  const auto positions_from = [&](int64_t at) {
    return hn::Add(lane_offsets, hn::Set(di, static_cast<Lane>(at)));
  };
  // The window's first tap starts the best; then every tap in ndarray's order may replace it
  // (the first again harmlessly: a tap replaces only itself).
  const int64_t start = w.rows[0] + w.first + o * w.stride;
  auto best = LoadTaps(d, plane + start, w.stride);
  auto best_at = positions_from(start);
  for (int64_t r = 0; r < w.row_count; ++r) {
    const int64_t row = w.rows[r] + w.first + o * w.stride;
    for (int64_t j = 0; j < w.taps; ++j) {
      const int64_t at = row + j * w.step;
      if (is_paired(w) && j + 1 < w.taps) {
        hn::Vec<D> even, odd;
        hn::LoadInterleaved2(d, plane + at, even, odd);
        Consider<D>(even, positions_from(at), best, best_at);
        Consider<D>(odd, positions_from(at + 1), best, best_at);
        ++j;
      } else {
        Consider<D>(LoadTaps(d, plane + at, w.stride), positions_from(at), best, best_at);
      }
    }
  }
  hn::StoreU(best, d, values + o);
  StorePositions(di, best_at, positions + o);
}

/// Outputs [o, end) of the row from begin on, a vector of d at a time while the loads stay
/// inside the row, the last vector ending at end (overlapping its predecessor: recomputed
/// outputs come out the same); what a vector of d cannot reach goes to half vectors, down to
/// 128 bits. Returns the first output left.
template <class D, typename T = hn::TFromD<D>, typename I>
int64_t MaxRowVectors(D d, const T* plane, const simd::MaxRow& w, int64_t begin, int64_t o,
                      int64_t end, T* values, I* positions) {
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  // The last element the loads of a vector starting at output o read.
  const int64_t reach = w.first + (w.taps - 1) * w.step +
                        (w.stride == 2 && !(is_paired(w) && w.taps % 2 == 0) ? 1 : 0);
  const auto fits = [&](int64_t at) {
    return at >= begin && at + lanes <= end && reach + (at + lanes - 1) * w.stride < w.width;
  };
  for (; o < end && fits(o); o += lanes)
    MaxVector(d, plane, w, o, values, positions);
  if (o < end && fits(end - lanes)) {
    MaxVector(d, plane, w, end - lanes, values, positions);
    return end;
  }
  if constexpr (hn::MaxLanes(D()) * sizeof(T) > 16) {
    return MaxRowVectors(hn::Half<D>(), plane, w, begin, o, end, values, positions);
  }
  return o;
}

template <typename T, typename I>
void MaxRow(const T* plane, const simd::MaxRow& w, int64_t begin, int64_t end, T* values,
            I* positions) {
  int64_t o = begin;
  if (w.stride <= 2)
    o = MaxRowVectors(hn::ScalableTag<T>(), plane, w, begin, o, end, values, positions);
  // The rest one output at a time, in the same order.
  for (; o < end; ++o) {
    int64_t best = w.rows[0] + w.first + o * w.stride;
    T best_value = plane[best];
    for (int64_t r = 0; r < w.row_count; ++r) {
      for (int64_t j = 0; j < w.taps; ++j) {
        const int64_t at = w.rows[r] + w.first + o * w.stride + j * w.step;
        if (plane[at] > best_value || std::isnan(plane[at])) {
          best = at;
          best_value = plane[at];
        }
      }
    }
    values[o] = best_value;
    positions[o] = static_cast<I>(best);
  }
}

void MaxRowF32I32(const float* plane, const simd::MaxRow& w, int64_t begin, int64_t end,
                  float* values, int32_t* positions) {
  MaxRow(plane, w, begin, end, values, positions);
}
void MaxRowF32I64(const float* plane, const simd::MaxRow& w, int64_t begin, int64_t end,
                  float* values, int64_t* positions) {
  MaxRow(plane, w, begin, end, values, positions);
}
void MaxRowF64I32(const double* plane, const simd::MaxRow& w, int64_t begin, int64_t end,
                  double* values, int32_t* positions) {
  MaxRow(plane, w, begin, end, values, positions);
}
void MaxRowF64I64(const double* plane, const simd::MaxRow& w, int64_t begin, int64_t end,
                  double* values, int64_t* positions) {
  MaxRow(plane, w, begin, end, values, positions);
}

}  // namespace ember::flex::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ember::flex::simd {

HWY_EXPORT(MaxRowF32I32);
HWY_EXPORT(MaxRowF32I64);
HWY_EXPORT(MaxRowF64I32);
HWY_EXPORT(MaxRowF64I64);

void max_row(const float* plane, const MaxRow& w, int64_t begin, int64_t end, float* values,
             int32_t* positions) {
  HWY_DYNAMIC_DISPATCH(MaxRowF32I32)(plane, w, begin, end, values, positions);
}
void max_row(const float* plane, const MaxRow& w, int64_t begin, int64_t end, float* values,
             int64_t* positions) {
  HWY_DYNAMIC_DISPATCH(MaxRowF32I64)(plane, w, begin, end, values, positions);
}
void max_row(const double* plane, const MaxRow& w, int64_t begin, int64_t end, double* values,
             int32_t* positions) {
  HWY_DYNAMIC_DISPATCH(MaxRowF64I32)(plane, w, begin, end, values, positions);
}
void max_row(const double* plane, const MaxRow& w, int64_t begin, int64_t end, double* values,
             int64_t* positions) {
  HWY_DYNAMIC_DISPATCH(MaxRowF64I64)(plane, w, begin, end, values, positions);
}

}  // namespace ember::flex::simd
#endif  // HWY_ONCE
