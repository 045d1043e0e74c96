// Highway kernels of simd.h: sums of contiguous lanes (in double, f32 in blocks, on some CPUs
// several rows at once), whole rows folded column by column (sums, extremes, arg-extremes),
// extremes with NaN propagation, and softmax of one contiguous lane.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/flex/simd_reduce.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <hwy/contrib/math/math-inl.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

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

/// The sum of x[0, n) with every value widened to double before it is added: f64's sum, and
/// f32's where its blocks overflow.
template <typename T>
double SumInDouble(const T* x, int64_t n) {
  const hn::ScalableTag<double> dd;
  const auto lanes = static_cast<int64_t>(hn::Lanes(dd));
  // Four accumulators hide the latency of the additions, and each step reads two cache lines
  // (f32) so that enough loads are in flight for the loop to run at memory speed.
  auto a0 = hn::Zero(dd);
  auto a1 = hn::Zero(dd);
  auto a2 = hn::Zero(dd);
  auto a3 = hn::Zero(dd);
  const auto pair = [&](int64_t at) HWY_ATTR {
    return hn::Add(LoadAsDouble(dd, x, at), LoadAsDouble(dd, x, at + 4 * lanes));
  };
  int64_t i = 0;
  for (; i + 8 * lanes <= n; i += 8 * lanes) {
    a0 = hn::Add(a0, pair(i));
    a1 = hn::Add(a1, pair(i + lanes));
    a2 = hn::Add(a2, pair(i + 2 * lanes));
    a3 = hn::Add(a3, pair(i + 3 * lanes));
  }
  for (; i + lanes <= n; i += lanes)
    a0 = hn::Add(a0, LoadAsDouble(dd, x, i));
  double total = hn::GetLane(hn::SumOfLanes(dd, hn::Add(hn::Add(a0, a1), hn::Add(a2, a3))));
  for (; i < n; ++i)
    total += static_cast<double>(x[i]);
  return total;
}

/// f32 vectors that a block of an f32 sum adds in f32 (a balanced tree of three levels) before
/// widening the block's lanes to double: widening each value costs more than the memory it reads.
constexpr int64_t kTreeVectors = 8;

/// The lane-wise sum of the kTreeVectors vectors at x, as a balanced tree of f32 additions.
template <class DF>
HWY_INLINE hn::Vec<DF> TreeSum(DF df, const float* x) {
  const auto lanes = static_cast<int64_t>(hn::Lanes(df));
  const auto v = [&](int64_t k) HWY_ATTR { return hn::LoadU(df, x + k * lanes); };
  const auto first = hn::Add(hn::Add(v(0), v(1)), hn::Add(v(2), v(3)));
  const auto second = hn::Add(hn::Add(v(4), v(5)), hn::Add(v(6), v(7)));
  return hn::Add(first, second);
}

/// lower += the lower half of s's lanes widened to double, upper += the upper half.
template <class DD, class VF>
HWY_INLINE void AddWidened(DD dd, VF s, hn::Vec<DD>& lower, hn::Vec<DD>& upper) {
#if HWY_TARGET == HWY_SCALAR
  // A single lane, which widens whole.
  (void)upper;
  lower = hn::Add(lower, hn::PromoteTo(dd, s));
#else
  const hn::Half<hn::DFromV<VF> > dh;
  lower = hn::Add(lower, hn::PromoteTo(dd, hn::LowerHalf(dh, s)));
  upper = hn::Add(upper, hn::PromoteTo(dd, hn::UpperHalf(dh, s)));
#endif
}

/// Rows that RowSums reads at once. Each row is a stream of its own, and on older cores several
/// streams keep more loads in flight than one: on Zen 3 (AVX2), 8 rows read about 1.5x as fast as
/// one row at a time on one thread and 1.3x on two (4 rows gain less, 16 lose it again). The
/// AVX-512 cores measured keep one stream fed on their own: one row at a time read 1.1-1.4x as
/// fast as 8 on Zen 4 (2, 4 and 8 rows all slower), and as fast on Emerald Rapids (16 threads).
/// The instruction set stands in for the core generation here.
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
constexpr int64_t kRowsAtOnce = 1;
#else
constexpr int64_t kRowsAtOnce = 8;
#endif

/// sums[r] = the sum of row r < R of the contiguous rows of n values at x, each as blocks of
/// kTreeVectors vectors added in f32, the blocks in double; the rows' blocks are read in turn.
/// Accuracy: each value goes through three f32 additions before it reaches double, so the error is
/// at most about 3 * 2^-24 * sum|x| (the double additions add n * 2^-53 * sum|x|). The blocks'
/// rounding errors are independent and mostly cancel: on the 70,000 nearly cancelling values of
/// FlexSimd.ReductionsMatchTheReferenceAlongEveryDim the error stays under a third of f32's
/// tolerance against ndarray's double sum at every vector width (1 to 16 lanes), where adding
/// three values per lane one after another in f32 (a chain rather than a tree) exceeds it.
template <int64_t R>
HWY_INLINE void SumRowsAtOnce(const float* x, int64_t n, double* sums) {
  const hn::ScalableTag<float> df;
  const hn::ScalableTag<double> dd;
  const auto lanes = static_cast<int64_t>(hn::Lanes(dd));
  const int64_t block = kTreeVectors * static_cast<int64_t>(hn::Lanes(df));
  // Row r's lower and upper double sums at acc + 2 * r * lanes: an array rather than vectors,
  // which scalable vectors cannot be held in; the compiler keeps them in registers.
  HWY_ALIGN double acc[R * 2 * kMaxLanes<double>] = {};
  const auto lower_at = [&](int64_t r) { return acc + 2 * r * lanes; };
  int64_t i = 0;
  for (; i + block <= n; i += block) {
    for (int64_t r = 0; r < R; ++r) {
      auto lower = hn::Load(dd, lower_at(r));
      auto upper = hn::Load(dd, lower_at(r) + lanes);
      AddWidened(dd, TreeSum(df, x + r * n + i), lower, upper);
      hn::Store(lower, dd, lower_at(r));
      hn::Store(upper, dd, lower_at(r) + lanes);
    }
  }
  for (int64_t r = 0; r < R; ++r) {
    const float* row = x + r * n;
    const auto blocks = hn::Add(hn::Load(dd, lower_at(r)), hn::Load(dd, lower_at(r) + lanes));
    const double total = hn::GetLane(hn::SumOfLanes(dd, blocks)) + SumInDouble(row + i, n - i);
    // A block can overflow f32 where double does not (FLT_MAX + FLT_MAX - FLT_MAX), leaving an
    // infinite or NaN total: summing again in double then gives ndarray's result. Rows holding
    // infinities or NaN take this second pass too, whose result they fix anyway.
    sums[r] = std::isfinite(total) ? total : SumInDouble(row, n);
  }
}

double Sum(const float* x, int64_t n) {
  double total;
  SumRowsAtOnce<1>(x, n, &total);
  return total;
}

void RowSumsF32(const float* x, int64_t rows, int64_t n, double* sums) {
  int64_t r = 0;
  for (; r + kRowsAtOnce <= rows; r += kRowsAtOnce)
    SumRowsAtOnce<kRowsAtOnce>(x + r * n, n, sums + r);
  for (; r < rows; ++r)
    sums[r] = Sum(x + r * n, n);
}

void RowSumsF64(const double* x, int64_t rows, int64_t n, double* sums) {
  for (int64_t r = 0; r < rows; ++r)
    sums[r] = SumInDouble(x + r * n, n);
}

double Sum(const double* x, int64_t n) {
  return SumInDouble(x, n);
}

void AddRow(const float* row, double* acc, int64_t n) {
  const hn::ScalableTag<double> dd;
  const auto lanes = static_cast<int64_t>(hn::Lanes(dd));
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes)
    hn::StoreU(hn::Add(hn::LoadU(dd, acc + i), LoadAsDouble(dd, row, i)), dd, acc + i);
  for (; i < n; ++i)
    acc[i] += static_cast<double>(row[i]);
}

/// Rows folded per pass over out: enough that out's loads and stores are a small part of the
/// work, few enough for the hardware prefetchers to follow every row.
constexpr int64_t kRowsPerPass = 8;

/// out[i] = the fold of the rows' column i in row order, rows >= 1; combine(earlier, later) takes
/// vectors and scalars alike. out may be the first row.
template <typename T, class Combine>
HWY_INLINE void FoldRows(const T* first, int64_t stride, int64_t rows, T* out, int64_t n,
                         const Combine& combine) {
  const hn::ScalableTag<T> d;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  for (int64_t k = 0; k < rows; k += kRowsPerPass) {
    const T* row = first + k * stride;
    const int64_t group = std::min(kRowsPerPass, rows - k);
    const bool onto_out = k > 0;  // later passes fold onto the earlier rows' result
    int64_t i = 0;
    for (; i + lanes <= n; i += lanes) {
      auto v = hn::LoadU(d, row + i);
      for (int64_t g = 1; g < group; ++g)
        v = combine(v, hn::LoadU(d, row + g * stride + i));
      hn::StoreU(onto_out ? combine(hn::LoadU(d, out + i), v) : v, d, out + i);
    }
    for (; i < n; ++i) {
      T v = row[i];
      for (int64_t g = 1; g < group; ++g)
        v = combine(v, row[g * stride + i]);
      out[i] = onto_out ? combine(out[i], v) : v;
    }
  }
}

template <typename T>
void SumRows(const T* first, int64_t stride, int64_t rows, T* out, int64_t n) {
  FoldRows(first, stride, rows, out, n,
           [](auto earlier, auto later) HWY_ATTR { return earlier + later; });
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
void ExtremeRows(const T* first, int64_t stride, int64_t rows, T* out, int64_t n, bool maximum) {
  // On ties the earlier value stays, as in a scan of the lane (it tells -0 from +0).
  FoldRows(first, stride, rows, out, n, [maximum](auto earlier, auto later) HWY_ATTR {
    if constexpr (std::is_floating_point_v<decltype(later)>) {
      return BetterValue(later, earlier, maximum);
    } else {
      return Better(later, earlier, maximum);
    }
  });
}

/// Where v takes best's place in a scan: v beyond best, or v NaN where best is not.
template <class V>
HWY_INLINE auto Replaces(V v, V best, bool maximum) {
  const auto beyond = maximum ? hn::Gt(v, best) : hn::Lt(v, best);
  return hn::Or(beyond, hn::AndNot(hn::IsNaN(best), hn::IsNaN(v)));
}

template <typename T>
bool ReplacesValue(T v, T best, bool maximum) {
  return (maximum ? v > best : v < best) || (std::isnan(v) && !std::isnan(best));
}

template <typename T>
void ArgExtremeRows(const T* first, int64_t stride, int64_t rows, T* best,
                    hwy::MakeSigned<T>* index, int64_t n, bool maximum) {
  using I = hwy::MakeSigned<T>;
  const hn::ScalableTag<T> d;
  const hn::RebindToSigned<decltype(d)> di;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  std::copy(first, first + n, best);
  std::fill(index, index + n, I{0});
  for (int64_t k = 1; k < rows; ++k) {
    const T* row = first + k * stride;
    const auto position = hn::Set(di, static_cast<I>(k));
    int64_t i = 0;
    for (; i + lanes <= n; i += lanes) {
      const auto v = hn::LoadU(d, row + i);
      const auto b = hn::LoadU(d, best + i);
      const auto take = Replaces(v, b, maximum);
      hn::StoreU(hn::IfThenElse(take, v, b), d, best + i);
      hn::StoreU(hn::IfThenElse(hn::RebindMask(di, take), position, hn::LoadU(di, index + i)), di,
                 index + i);
    }
    for (; i < n; ++i) {
      if (ReplacesValue(row[i], best[i], maximum)) {
        best[i] = row[i];
        index[i] = static_cast<I>(k);
      }
    }
  }
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
void SumRowsF32(const float* first, int64_t stride, int64_t rows, float* out, int64_t n) {
  SumRows(first, stride, rows, out, n);
}
void SumRowsF64(const double* first, int64_t stride, int64_t rows, double* out, int64_t n) {
  SumRows(first, stride, rows, out, n);
}
float ExtremeF32(const float* x, int64_t n, bool maximum) {
  return Extreme(x, n, maximum);
}
double ExtremeF64(const double* x, int64_t n, bool maximum) {
  return Extreme(x, n, maximum);
}
void ExtremeRowsF32(const float* first, int64_t stride, int64_t rows, float* out, int64_t n,
                    bool maximum) {
  ExtremeRows(first, stride, rows, out, n, maximum);
}
void ExtremeRowsF64(const double* first, int64_t stride, int64_t rows, double* out, int64_t n,
                    bool maximum) {
  ExtremeRows(first, stride, rows, out, n, maximum);
}
void ArgExtremeRowsF32(const float* first, int64_t stride, int64_t rows, float* best,
                       int32_t* index, int64_t n, bool maximum) {
  ArgExtremeRows(first, stride, rows, best, index, n, maximum);
}
void ArgExtremeRowsF64(const double* first, int64_t stride, int64_t rows, double* best,
                       int64_t* index, int64_t n, bool maximum) {
  ArgExtremeRows(first, stride, rows, best, index, n, maximum);
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
HWY_EXPORT(RowSumsF32);
HWY_EXPORT(RowSumsF64);
HWY_EXPORT(AddRow);
HWY_EXPORT(SumRowsF32);
HWY_EXPORT(SumRowsF64);
HWY_EXPORT(ExtremeF32);
HWY_EXPORT(ExtremeF64);
HWY_EXPORT(ExtremeRowsF32);
HWY_EXPORT(ExtremeRowsF64);
HWY_EXPORT(ArgExtremeRowsF32);
HWY_EXPORT(ArgExtremeRowsF64);
HWY_EXPORT(SoftmaxF32);
HWY_EXPORT(SoftmaxF64);

double sum(const float* x, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(SumF32)(x, n);
}
double sum(const double* x, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(SumF64)(x, n);
}
void row_sums(const float* x, int64_t rows, int64_t n, double* sums) {
  HWY_DYNAMIC_DISPATCH(RowSumsF32)(x, rows, n, sums);
}
void row_sums(const double* x, int64_t rows, int64_t n, double* sums) {
  HWY_DYNAMIC_DISPATCH(RowSumsF64)(x, rows, n, sums);
}
void add_row(const float* row, double* acc, int64_t n) {
  HWY_DYNAMIC_DISPATCH(AddRow)(row, acc, n);
}
void sum_rows(const float* first, int64_t stride, int64_t rows, float* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(SumRowsF32)(first, stride, rows, out, n);
}
void sum_rows(const double* first, int64_t stride, int64_t rows, double* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(SumRowsF64)(first, stride, rows, out, n);
}
float extreme(const float* x, int64_t n, bool maximum) {
  return HWY_DYNAMIC_DISPATCH(ExtremeF32)(x, n, maximum);
}
double extreme(const double* x, int64_t n, bool maximum) {
  return HWY_DYNAMIC_DISPATCH(ExtremeF64)(x, n, maximum);
}
void extreme_rows(const float* first, int64_t stride, int64_t rows, float* out, int64_t n,
                  bool maximum) {
  HWY_DYNAMIC_DISPATCH(ExtremeRowsF32)(first, stride, rows, out, n, maximum);
}
void extreme_rows(const double* first, int64_t stride, int64_t rows, double* out, int64_t n,
                  bool maximum) {
  HWY_DYNAMIC_DISPATCH(ExtremeRowsF64)(first, stride, rows, out, n, maximum);
}
void arg_extreme_rows(const float* first, int64_t stride, int64_t rows, float* best, int32_t* index,
                      int64_t n, bool maximum) {
  HWY_DYNAMIC_DISPATCH(ArgExtremeRowsF32)(first, stride, rows, best, index, n, maximum);
}
void arg_extreme_rows(const double* first, int64_t stride, int64_t rows, double* best,
                      int64_t* index, int64_t n, bool maximum) {
  HWY_DYNAMIC_DISPATCH(ArgExtremeRowsF64)(first, stride, rows, best, index, n, maximum);
}
void softmax(const float* x, float* out, int64_t n, bool log) {
  HWY_DYNAMIC_DISPATCH(SoftmaxF32)(x, out, n, log);
}
void softmax(const double* x, double* out, int64_t n, bool log) {
  HWY_DYNAMIC_DISPATCH(SoftmaxF64)(x, out, n, log);
}

}  // namespace ember::flex::simd
#endif  // HWY_ONCE
