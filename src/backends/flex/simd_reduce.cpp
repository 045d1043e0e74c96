// Highway kernels of simd.h: sums (accumulated in double), extremes with NaN propagation, and
// softmax of one contiguous lane.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/flex/simd_reduce.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <hwy/contrib/math/math-inl.h>

#include <cmath>
#include <limits>

#include "backends/flex/simd.h"
#include "backends/flex/simd_map-inl.h"

HWY_BEFORE_NAMESPACE();
namespace ember::flex::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

/// Loads lanes of x starting at i as doubles (f32 widened).
template <class DD, typename T>
HWY_INLINE auto LoadAsDouble(DD dd, const T* x, int64_t i) {
  if constexpr (sizeof(T) == 4) {
    return hn::PromoteTo(dd, hn::LoadU(hn::Rebind<float, DD>(), x + i));
  } else {
    return hn::LoadU(dd, x + i);
  }
}

template <typename T>
double Sum(const T* x, int64_t n) {
  const hn::ScalableTag<double> dd;
  const auto lanes = static_cast<int64_t>(hn::Lanes(dd));
  // Two accumulators hide the latency of the additions.
  auto even = hn::Zero(dd);
  auto odd = hn::Zero(dd);
  int64_t i = 0;
  for (; i + 2 * lanes <= n; i += 2 * lanes) {
    even = hn::Add(even, LoadAsDouble(dd, x, i));
    odd = hn::Add(odd, LoadAsDouble(dd, x, i + lanes));
  }
  double total = hn::GetLane(hn::SumOfLanes(dd, hn::Add(even, odd)));
  for (; i < n; ++i)
    total += static_cast<double>(x[i]);
  return total;
}

template <typename T>
void AddRow(const T* row, double* acc, int64_t n) {
  const hn::ScalableTag<double> dd;
  const auto lanes = static_cast<int64_t>(hn::Lanes(dd));
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes)
    hn::StoreU(hn::Add(hn::LoadU(dd, acc + i), LoadAsDouble(dd, row, i)), dd, acc + i);
  for (; i < n; ++i)
    acc[i] += static_cast<double>(row[i]);
}

/// best replaced by v where v is NaN or beyond it; a NaN best stays (the first NaN wins).
template <class V>
HWY_INLINE V Better(V v, V best, bool maximum) {
  const auto beyond = maximum ? hn::Gt(v, best) : hn::Lt(v, best);
  return hn::IfThenElse(hn::Or(hn::IsNaN(v), beyond), v, best);
}

template <typename T>
T BetterValue(T v, T best, bool maximum) {
  return std::isnan(v) || (maximum ? v > best : v < best) ? v : best;
}

template <typename T>
T Extreme(const T* x, int64_t n, bool maximum) {
  const hn::ScalableTag<T> d;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  T best = x[0];
  int64_t i = 0;
  if (n >= lanes) {
    auto bests = hn::LoadU(d, x);
    for (i = lanes; i + lanes <= n; i += lanes)
      bests = Better(hn::LoadU(d, x + i), bests, maximum);
    HWY_ALIGN T lane_bests[kMaxLanes<T>];
    hn::Store(bests, d, lane_bests);
    best = lane_bests[0];
    for (int64_t j = 1; j < lanes; ++j)
      best = BetterValue(lane_bests[j], best, maximum);
  }
  for (; i < n; ++i)
    best = BetterValue(x[i], best, maximum);
  return best;
}

template <typename T>
void ExtremeRow(const T* row, T* acc, int64_t n, bool maximum) {
  const hn::ScalableTag<T> d;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes)
    hn::StoreU(Better(hn::LoadU(d, row + i), hn::LoadU(d, acc + i), maximum), d, acc + i);
  for (; i < n; ++i)
    acc[i] = BetterValue(row[i], acc[i], maximum);
}

/// out[i] = x[i] - s (x and out may be the same array).
template <typename T>
void SubtractValue(const T* x, T s, T* out, int64_t n) {
  const hn::ScalableTag<T> d;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto vs = hn::Set(d, s);
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes)
    hn::StoreU(hn::Sub(hn::LoadU(d, x + i), vs), d, out + i);
  for (; i < n; ++i)
    out[i] = x[i] - s;
}

/// out[i] /= s.
template <typename T>
void DivideByValue(T* out, T s, int64_t n) {
  const hn::ScalableTag<T> d;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto vs = hn::Set(d, s);
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes)
    hn::StoreU(hn::Div(hn::LoadU(d, out + i), vs), d, out + i);
  for (; i < n; ++i)
    out[i] /= s;
}

template <typename T>
void Softmax(const T* x, T* out, int64_t n, bool log) {
  const T max = Extreme(x, n, true);
  SubtractValue(x, max, out, n);
  // Shifted values are <= 0 (Exp's valid range) unless NaN or infinite.
  MapChecked(
      out, out, n, hwy::LowestValue<T>(), T{0},
      [](auto d, auto v) HWY_ATTR { return hn::Exp(d, v); }, [](T v) { return std::exp(v); });
  const auto sum = static_cast<T>(Sum(out, n));
  if (log) {
    SubtractValue(x, max, out, n);
    SubtractValue(out, std::log(sum), out, n);
  } else {
    DivideByValue(out, sum, n);
  }
}

double SumF32(const float* x, int64_t n) {
  return Sum(x, n);
}
double SumF64(const double* x, int64_t n) {
  return Sum(x, n);
}
void AddRowF32(const float* row, double* acc, int64_t n) {
  AddRow(row, acc, n);
}
void AddRowF64(const double* row, double* acc, int64_t n) {
  AddRow(row, acc, n);
}
float ExtremeF32(const float* x, int64_t n, bool maximum) {
  return Extreme(x, n, maximum);
}
double ExtremeF64(const double* x, int64_t n, bool maximum) {
  return Extreme(x, n, maximum);
}
void ExtremeRowF32(const float* row, float* acc, int64_t n, bool maximum) {
  ExtremeRow(row, acc, n, maximum);
}
void ExtremeRowF64(const double* row, double* acc, int64_t n, bool maximum) {
  ExtremeRow(row, acc, n, maximum);
}
void SoftmaxF32(const float* x, float* out, int64_t n, bool log) {
  Softmax(x, out, n, log);
}
void SoftmaxF64(const double* x, double* out, int64_t n, bool log) {
  Softmax(x, out, n, log);
}

}  // namespace ember::flex::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ember::flex::simd {

HWY_EXPORT(SumF32);
HWY_EXPORT(SumF64);
HWY_EXPORT(AddRowF32);
HWY_EXPORT(AddRowF64);
HWY_EXPORT(ExtremeF32);
HWY_EXPORT(ExtremeF64);
HWY_EXPORT(ExtremeRowF32);
HWY_EXPORT(ExtremeRowF64);
HWY_EXPORT(SoftmaxF32);
HWY_EXPORT(SoftmaxF64);

double sum(const float* x, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(SumF32)(x, n);
}
double sum(const double* x, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(SumF64)(x, n);
}
void add_row(const float* row, double* acc, int64_t n) {
  HWY_DYNAMIC_DISPATCH(AddRowF32)(row, acc, n);
}
void add_row(const double* row, double* acc, int64_t n) {
  HWY_DYNAMIC_DISPATCH(AddRowF64)(row, acc, n);
}
float extreme(const float* x, int64_t n, bool maximum) {
  return HWY_DYNAMIC_DISPATCH(ExtremeF32)(x, n, maximum);
}
double extreme(const double* x, int64_t n, bool maximum) {
  return HWY_DYNAMIC_DISPATCH(ExtremeF64)(x, n, maximum);
}
void extreme_row(const float* row, float* acc, int64_t n, bool maximum) {
  HWY_DYNAMIC_DISPATCH(ExtremeRowF32)(row, acc, n, maximum);
}
void extreme_row(const double* row, double* acc, int64_t n, bool maximum) {
  HWY_DYNAMIC_DISPATCH(ExtremeRowF64)(row, acc, n, maximum);
}
void softmax(const float* x, float* out, int64_t n, bool log) {
  HWY_DYNAMIC_DISPATCH(SoftmaxF32)(x, out, n, log);
}
void softmax(const double* x, double* out, int64_t n, bool log) {
  HWY_DYNAMIC_DISPATCH(SoftmaxF64)(x, out, n, log);
}

}  // namespace ember::flex::simd
#endif  // HWY_ONCE
