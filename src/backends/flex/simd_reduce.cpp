// Highway kernels of simd.h: sums of contiguous lanes (in double, f32 in blocks, on some CPUs
// several rows at once), whole rows folded column by column (sums, extremes, arg-extremes),
// extremes with NaN propagation, the position of a lane's extreme in one pass, and softmax of
// one contiguous lane, or of columns across rows, in one pass over memory.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/flex/simd_reduce.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <hwy/contrib/math/math-inl.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "backends/flex/exp_table.h"
#include "backends/flex/fetch_toward_l2.h"
#include "backends/flex/highway_exp.h"
#include "backends/flex/simd.h"
#include "backends/flex/simd_map-inl.h"
#include "backends/flex/simd_widen-inl.h"
#include "core/ceil_div.h"

HWY_BEFORE_NAMESPACE();
namespace ember::flex::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

/// The f32 lanes at x: f32 loaded, bf16 and f16 widened in registers (a sum's NaN is quiet
/// whatever the payload, so f16 takes F16C's conversion as it is).
template <class DF, typename T>
HWY_INLINE hn::Vec<DF> LoadF32(DF df, const T* x) {
  if constexpr (std::is_same_v<T, float>) {
    return hn::LoadU(df, x);
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return LoadWidened(df, x);
  } else {
    return LoadWidened<false>(df, x);
  }
}

/// x as a double (bf16 and f16 through their exact f32 value).
template <typename T>
double AsDouble(T x) {
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<double>(x);
  } else {
    return static_cast<double>(static_cast<float>(x));
  }
}

/// Loads lanes of x starting at i as doubles (f32, bf16 and f16 widened).
template <class DD, typename T>
HWY_INLINE auto LoadAsDouble(DD dd, const T* x, int64_t i) {
  if constexpr (std::is_same_v<T, double>) {
    return hn::LoadU(dd, x + i);
  } else {
    return hn::PromoteTo(dd, LoadF32(hn::Rebind<float, DD>(), x + i));
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
    total += AsDouble(x[i]);
  return total;
}

/// f32 vectors that a block of an f32 sum adds in f32 (a balanced tree of three levels) before
/// widening the block's lanes to double: widening each value costs more than the memory it reads.
constexpr int64_t kTreeVectors = 8;

/// The lane-wise sum of the kTreeVectors vectors at x (widened to f32), as a balanced tree of f32
/// additions.
template <class DF, typename T>
HWY_INLINE hn::Vec<DF> TreeSum(DF df, const T* x) {
  const auto lanes = static_cast<int64_t>(hn::Lanes(df));
  const auto v = [&](int64_t k) HWY_ATTR { return LoadF32(df, x + k * lanes); };
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
  const hn::Half<hn::DFromV<VF>> dh;
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
template <int64_t R, typename T>
HWY_INLINE void SumRowsAtOnce(const T* x, int64_t n, double* sums) {
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
    const T* row = x + r * n;
    const auto blocks = hn::Add(hn::Load(dd, lower_at(r)), hn::Load(dd, lower_at(r) + lanes));
    const double total = hn::GetLane(hn::SumOfLanes(dd, blocks)) + SumInDouble(row + i, n - i);
    // A block can overflow f32 where double does not (FLT_MAX + FLT_MAX - FLT_MAX), leaving an
    // infinite or NaN total: summing again in double then gives ndarray's result. Rows holding
    // infinities or NaN take this second pass too, whose result they fix anyway.
    sums[r] = std::isfinite(total) ? total : SumInDouble(row, n);
  }
}

/// f32, bf16 and f16 (widened in registers: the same additions as on an f32 copy, so the same
/// result, without writing and reading the copy).
template <typename T>
double Sum(const T* x, int64_t n) {
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

/// acc[i] += row[i] in double, i < n.
template <typename T>
HWY_INLINE void AddIntoDouble(const T* row, double* acc, int64_t n) {
  const hn::ScalableTag<double> dd;
  const auto lanes = static_cast<int64_t>(hn::Lanes(dd));
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes)
    hn::StoreU(hn::Add(hn::LoadU(dd, acc + i), LoadAsDouble(dd, row, i)), dd, acc + i);
  for (; i < n; ++i)
    acc[i] += static_cast<double>(row[i]);
}

void AddRow(const float* row, double* acc, int64_t n) {
  AddIntoDouble(row, acc, n);
}

/// Rows folded per pass over out: enough that out's loads and stores are a small part of the
/// work, few enough for the hardware prefetchers to follow every row.
constexpr int64_t kRowsPerPass = 8;

/// pass(row, group, onto_out) for each kRowsPerPass rows of the rows at first (stride apart): row
/// the pass's first row, group its rows, onto_out whether earlier passes left their result in out
/// (later passes fold onto it).
template <typename T, class Pass>
HWY_INLINE void ForEachPass(const T* first, int64_t stride, int64_t rows, const Pass& pass) {
  for (int64_t k = 0; k < rows; k += kRowsPerPass)
    pass(first + k * stride, std::min(kRowsPerPass, rows - k), k > 0);
}

/// out[i] = the fold of the rows' column i in row order, rows >= 1; combine(earlier, later) takes
/// vectors and scalars alike. out may be the first row.
template <typename T, class Combine>
HWY_INLINE void FoldRows(const T* first, int64_t stride, int64_t rows, T* out, int64_t n,
                         const Combine& combine) {
  const hn::ScalableTag<T> d;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  ForEachPass(first, stride, rows, [&](const T* row, int64_t group, bool onto_out) HWY_ATTR {
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
  });
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

/// Vectors an extreme folds in turn, each into its own accumulator: a compare and a blend per
/// vector wait on the previous result of the same accumulator only.
constexpr int64_t kExtremeAccumulators = 4;

template <typename T>
T Extreme(const T* x, int64_t n, bool maximum) {
  const hn::ScalableTag<T> d;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  T best = x[0];
  int64_t i = 0;
  if (n >= kExtremeAccumulators * lanes) {
    auto b0 = hn::LoadU(d, x);
    auto b1 = hn::LoadU(d, x + lanes);
    auto b2 = hn::LoadU(d, x + 2 * lanes);
    auto b3 = hn::LoadU(d, x + 3 * lanes);
    for (i = 4 * lanes; i + 4 * lanes <= n; i += 4 * lanes) {
      b0 = Better(hn::LoadU(d, x + i), b0, maximum);
      b1 = Better(hn::LoadU(d, x + i + lanes), b1, maximum);
      b2 = Better(hn::LoadU(d, x + i + 2 * lanes), b2, maximum);
      b3 = Better(hn::LoadU(d, x + i + 3 * lanes), b3, maximum);
    }
    // Which lane or accumulator found a value does not matter: only the value is returned.
    auto bests = Better(Better(b1, b0, maximum), Better(b3, b2, maximum), maximum);
    for (; i + lanes <= n; i += lanes)
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

/// The first position of a NaN in x[0, n), or -1.
template <typename T>
int64_t FirstNaN(const T* x, int64_t n) {
  for (int64_t k = 0; k < n; ++k) {
    if (std::isnan(x[k])) return k;
  }
  return -1;
}

/// The first position of x's maximum (kMaximum) or minimum, in one pass: each lane of two
/// accumulator pairs keeps its best value and the position where it first saw it (a strict
/// compare keeps the earlier of equal values), and NaN is only noted, its position found
/// afterwards: the rare case pays a second pass so that the common one compares once per vector.
template <bool kMaximum, typename T>
int64_t ArgExtremeOnePass(const T* x, int64_t n) {
  using I = hwy::MakeSigned<T>;
  const hn::ScalableTag<T> d;
  const hn::RebindToSigned<decltype(d)> di;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto beyond = [](auto v, auto best)
                          HWY_ATTR { return kMaximum ? hn::Gt(v, best) : hn::Lt(v, best); };
  auto best0 = hn::LoadU(d, x);
  auto best1 = hn::LoadU(d, x + lanes);
  auto at0 = hn::Iota(di, I{0});
  auto at1 = hn::Iota(di, static_cast<I>(lanes));
  auto nan = hn::Or(hn::IsNaN(best0), hn::IsNaN(best1));
  auto position0 = at0;
  auto position1 = at1;
  const auto step = hn::Set(di, static_cast<I>(2 * lanes));
  int64_t i = 2 * lanes;
  for (; i + 2 * lanes <= n; i += 2 * lanes) {
    position0 = hn::Add(position0, step);
    position1 = hn::Add(position1, step);
    const auto v0 = hn::LoadU(d, x + i);
    const auto v1 = hn::LoadU(d, x + i + lanes);
    const auto take0 = beyond(v0, best0);
    const auto take1 = beyond(v1, best1);
    best0 = hn::IfThenElse(take0, v0, best0);
    best1 = hn::IfThenElse(take1, v1, best1);
    at0 = hn::IfThenElse(hn::RebindMask(di, take0), position0, at0);
    at1 = hn::IfThenElse(hn::RebindMask(di, take1), position1, at1);
    nan = hn::Or(nan, hn::Or(hn::IsNaN(v0), hn::IsNaN(v1)));
  }
  if (!hn::AllFalse(d, nan)) return FirstNaN(x, n);
  HWY_ALIGN T values[2 * kMaxLanes<T>];
  HWY_ALIGN I positions[2 * kMaxLanes<T>];
  hn::Store(best0, d, values);
  hn::Store(best1, d, values + lanes);
  hn::Store(at0, di, positions);
  hn::Store(at1, di, positions + lanes);
  // Across lanes, equal values go to the earlier position; the tail comes after every lane.
  T best = values[0];
  int64_t where = positions[0];
  for (int64_t j = 1; j < 2 * lanes; ++j) {
    const bool earlier_tie = values[j] == best && positions[j] < where;
    if ((kMaximum ? values[j] > best : values[j] < best) || earlier_tie) {
      best = values[j];
      where = positions[j];
    }
  }
  for (; i < n; ++i) {
    if (std::isnan(x[i])) return i;
    if (kMaximum ? x[i] > best : x[i] < best) {
      best = x[i];
      where = i;
    }
  }
  return where;
}

template <typename T>
int64_t ArgExtreme(const T* x, int64_t n, bool maximum) {
  const hn::ScalableTag<T> d;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  // Positions count in lanes as wide as T; a row too short for two vectors or too long for
  // those positions is scanned for its extreme value, then for that value.
  if (n < 2 * lanes || n > std::numeric_limits<hwy::MakeSigned<T>>::max()) {
    const T best = Extreme(x, n, maximum);
    if (std::isnan(best)) return FirstNaN(x, n);
    return std::find(x, x + n, best) - x;
  }
  return maximum ? ArgExtremeOnePass<true>(x, n) : ArgExtremeOnePass<false>(x, n);
}

/// ExtremeRows's fold of the rows' column i in row order (BetterValue's), lane by lane: the
/// columns whose fast fold saw a NaN or an infinity. out may be the first row.
template <typename T>
void ExactExtremeColumns(const T* row, int64_t stride, int64_t group, bool onto_out, T* out,
                         int64_t i, int64_t count, bool maximum) {
  for (int64_t j = i; j < i + count; ++j) {
    T best = onto_out ? out[j] : row[j];
    for (int64_t g = onto_out ? 0 : 1; g < group; ++g)
      best = BetterValue(row[g * stride + j], best, maximum);
    out[j] = best;
  }
}

template <typename T>
void ExtremeRows(const T* first, int64_t stride, int64_t rows, T* out, int64_t n, bool maximum) {
#if HWY_ARCH_X86
  // x86's max and min take one instruction that keeps its second operand, the earlier value, on
  // ties (telling -0 from +0 as a scan of the lane does) and on NaN: where Better's two compares
  // and a blend made max and min along dim 1 of [8, 512, 4096] compute-bound. A NaN must win, so
  // each vector of a pass also adds its values: a sum that is not finite (a NaN, an infinity, or an
  // overflow) sends the vector's columns to the exact fold for that pass.
  const hn::ScalableTag<T> d;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  ForEachPass(first, stride, rows, [&](const T* row, int64_t group, bool onto_out) HWY_ATTR {
    int64_t i = 0;
    for (; i + lanes <= n; i += lanes) {
      auto best = onto_out ? hn::LoadU(d, out + i) : hn::LoadU(d, row + i);
      auto check = best;
      for (int64_t g = onto_out ? 0 : 1; g < group; ++g) {
        const auto v = hn::LoadU(d, row + g * stride + i);
        best = maximum ? hn::Max(v, best) : hn::Min(v, best);
        check = hn::Add(check, v);
      }
      if (HWY_LIKELY(hn::AllTrue(d, hn::IsFinite(check)))) {
        hn::StoreU(best, d, out + i);
      } else {
        ExactExtremeColumns(row, stride, group, onto_out, out, i, lanes, maximum);
      }
    }
    ExactExtremeColumns(row, stride, group, onto_out, out, i, n - i, maximum);
  });
#else
  // On ties the earlier value stays, as in a scan of the lane (it tells -0 from +0).
  FoldRows(first, stride, rows, out, n, [maximum](auto earlier, auto later) HWY_ATTR {
    if constexpr (std::is_floating_point_v<decltype(later)>) {
      return BetterValue(later, earlier, maximum);
    } else {
      return Better(later, earlier, maximum);
    }
  });
#endif
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
  // kRowsPerPass rows per pass over best and index, which stay in registers meanwhile; the first
  // pass starts from row 0 itself, so that best and index are only written, not copied first.
  for (int64_t k = 0; k < rows; k += kRowsPerPass) {
    const T* row = first + k * stride;
    const int64_t group = std::min(kRowsPerPass, rows - k);
    const int64_t from = k == 0 ? 1 : 0;
    int64_t i = 0;
    for (; i + lanes <= n; i += lanes) {
      auto b = k == 0 ? hn::LoadU(d, row + i) : hn::LoadU(d, best + i);
      auto at = k == 0 ? hn::Zero(di) : hn::LoadU(di, index + i);
      for (int64_t g = from; g < group; ++g) {
        const auto v = hn::LoadU(d, row + g * stride + i);
        const auto take = Replaces(v, b, maximum);
        b = hn::IfThenElse(take, v, b);
        at = hn::IfThenElse(hn::RebindMask(di, take), hn::Set(di, static_cast<I>(k + g)), at);
      }
      hn::StoreU(b, d, best + i);
      hn::StoreU(at, di, index + i);
    }
    for (; i < n; ++i) {
      if (k == 0) {
        best[i] = row[i];
        index[i] = 0;
      }
      for (int64_t g = from; g < group; ++g) {
        if (ReplacesValue(row[g * stride + i], best[i], maximum)) {
          best[i] = row[g * stride + i];
          index[i] = static_cast<I>(k + g);
        }
      }
    }
  }
}

/// Vectors a softmax adds into its f32 sum before adding that into double: few enough that f32
/// rounding stays far below f32's tolerance.
constexpr int64_t kExpSumBlock = 16;

/// The sum of (x[i] - mean)^2: each deviation in T, their squares added in T a block of
/// kExpSumBlock vectors at a time and the blocks in double. A result that overflows T's blocks
/// (deviations beyond about 1e19 in f32) is summed again in double, as the reference does.
template <typename T>
double SquaredDeviations(const T* x, int64_t n, double mean) {
  const hn::ScalableTag<T> d;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto means = hn::Set(d, static_cast<T>(mean));
  auto block = hn::Zero(d);
  double total = 0.0;
  int64_t i = 0;
  for (int64_t k = 1; i + lanes <= n; i += lanes, ++k) {
    const auto deviation = hn::Sub(hn::LoadU(d, x + i), means);
    block = hn::MulAdd(deviation, deviation, block);
    if (k % kExpSumBlock == 0) {
      total += static_cast<double>(hn::GetLane(hn::SumOfLanes(d, block)));
      block = hn::Zero(d);
    }
  }
  total += static_cast<double>(hn::GetLane(hn::SumOfLanes(d, block)));
  for (; i < n; ++i) {
    const double deviation = static_cast<double>(x[i]) - mean;
    total += deviation * deviation;
  }
  if (std::isfinite(total) || !std::isfinite(mean)) return total;
  total = 0.0;
  for (int64_t k = 0; k < n; ++k) {
    const double deviation = static_cast<double>(x[k]) - mean;
    total += deviation * deviation;
  }
  return total;
}

/// exp(x) for x in [-inf, 0] (no NaN) in f32, fewer operations than hn::Exp, whose full range
/// softmax does not need; f64: hn::Exp. The rounding of x / ln 2 (or 8 x / ln 2) comes from adding
/// 1.5 * 2^23, which leaves it in the low bits of the sum (round to nearest even, as hn::Round), so
/// no float-to-int conversion is needed (AVX-512's saturating one is five instructions), and the
/// power of two is built from those bits, which x <= 0 allows. With kFlush, results
/// below the smallest x taken are flushed to 0, an error under 2.4e-38 that no softmax tolerance
/// sees; without, such x give that x's exponential instead, for sums that hold exp(0) = 1 (a row's
/// maximum) and so cannot show it, two instructions fewer.
/// - Vectors of 8 to 16 lanes (AVX2, AVX-512): exp_table.h's table of 2^(j / 8) and cubic.
/// - Other vectors (SSE4 and older; scalable ones): Highway's Exp's constants (highway_exp.h: the
///   same reduction by ln 2 and degree-7 polynomial, by Horner's scheme).
template <bool kFlush = true, class D>
HWY_INLINE hn::Vec<D> ExpNonPositive(D d, hn::Vec<D> x) {
  constexpr float kShifter = 12582912.0f;  // 1.5 * 2^23
  if constexpr (sizeof(hn::TFromD<D>) == 8) {
    return hn::Exp(d, x);
  } else if constexpr (hn::MaxLanes(d) >= 8 && hn::MaxLanes(d) <= 16) {  // the table's 16
    namespace t = exp_table;
    const hn::RebindToSigned<D> di;
    const auto lowest = hn::Set(d, t::kLowest);
    const auto clamped = hn::Max(x, lowest);
    const auto shifted = hn::MulAdd(clamped, hn::Set(d, t::kEightOverLn2), hn::Set(d, kShifter));
    const auto m = hn::Sub(shifted, hn::Set(d, kShifter));
    auto r = hn::MulAdd(m, hn::Set(d, t::kLn2Over8Part0), clamped);
    r = hn::MulAdd(m, hn::Set(d, t::kLn2Over8Part1), r);
    const auto q =
        hn::MulAdd(hn::MulAdd(hn::Set(d, t::kC3), r, hn::Set(d, t::kC2)), r, hn::Set(d, 1.0f));
    const auto m_bits = hn::BitCast(di, shifted);  // 0x4B400000 + m, m in [-1000, 0]
    const auto power = hn::TableLookupLanes(hn::Load(d, t::kPowers),
                                            hn::IndicesFromVec(d, hn::And(m_bits, hn::Set(di, 7))));
    const auto fraction = hn::MulAdd(power, hn::Mul(q, r), power);  // 2^(j/8) exp(r), in [0.95, 2)
    // floor(m / 8) << 23: m's low 12 bits (|m| < 2^11) moved to the top, below the exponent's.
    const auto exponent = hn::And(hn::ShiftLeft<20>(m_bits), hn::Set(di, int32_t{-0x800000}));
    const auto result = hn::BitCast(d, hn::Add(hn::BitCast(di, fraction), exponent));
    if constexpr (!kFlush) return result;
    return hn::IfThenZeroElse(hn::Lt(x, lowest), result);
  } else {
    namespace e = highway_exp;
    const auto lowest = hn::Set(d, -87.33654475f);  // ln(2^-126)
    const auto clamped = hn::Max(x, lowest);
    const auto shifted = hn::MulAdd(clamped, hn::Set(d, e::kOneOverLn2), hn::Set(d, kShifter));
    const auto k = hn::Sub(shifted, hn::Set(d, kShifter));
    auto r = hn::MulAdd(k, hn::Set(d, e::kLn2Part0), clamped);
    r = hn::MulAdd(k, hn::Set(d, e::kLn2Part1), r);
    auto q = hn::Set(d, e::kPoly[5]);
    for (int j = 4; j >= 0; --j)
      q = hn::MulAdd(q, r, hn::Set(d, e::kPoly[j]));
    const auto p = hn::MulAdd(hn::Mul(r, r), q, hn::Add(r, hn::Set(d, 1.0f)));
    // 2^k from shifted's bits (0x4B400000 + k, so that 2^k's exponent field is k + 127).
    const hn::RebindToSigned<D> di;
    const auto biased = hn::Add(hn::BitCast(di, shifted), hn::Set(di, 127 - 0x4B400000));
    const auto result = hn::Mul(p, hn::BitCast(d, hn::ShiftLeft<23>(biased)));
    if constexpr (!kFlush) return result;
    return hn::IfThenZeroElse(hn::Lt(x, lowest), result);
  }
}

/// dst[i] = exp(x[i] - shift) (kStore; else not stored), returning the sum of the exponentials. A
/// finite shift, x's maximum, leaves every shifted value in [-inf, 0], where Exp is valid (below
/// its lower bound, -inf included, it gives 0, or about 2^-125 where nothing is stored); any other
/// shift (a row with NaN or +inf, or all -inf) goes through the standard library, which gives the
/// reference's NaN.
template <bool kStore, typename T>
double ExpShiftedSum(const T* x, T shift, T* dst, int64_t n) {
  const hn::ScalableTag<T> d;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  double total = 0.0;
  int64_t i = 0;
  if (std::isfinite(shift)) {
    const auto shifts = hn::Set(d, shift);
    auto block = hn::Zero(d);
    for (int64_t k = 1; i + lanes <= n; i += lanes, ++k) {
      const auto e = ExpNonPositive<kStore>(d, hn::Sub(hn::LoadU(d, x + i), shifts));
      if constexpr (kStore) hn::StoreU(e, d, dst + i);
      block = hn::Add(block, e);
      if (k % kExpSumBlock == 0) {
        total += static_cast<double>(hn::GetLane(hn::SumOfLanes(d, block)));
        block = hn::Zero(d);
      }
    }
    total += static_cast<double>(hn::GetLane(hn::SumOfLanes(d, block)));
  }
  for (; i < n; ++i) {
    const T e = std::exp(x[i] - shift);
    if constexpr (kStore) dst[i] = e;
    total += static_cast<double>(e);
  }
  return total;
}

/// out[i] = alpha * exp(x[i] - shift) - beta * w[i] (w null: 1), shift >= every x[i] (a row's
/// log-sum-exp): cross_entropy's gradient before its target's term.
template <bool kStream, typename T>
void ScaledExpRow(const T* x, T shift, T alpha, const T* w, T beta, T* out, int64_t n) {
  const auto scalar = [&](int64_t i) {
    return alpha * std::exp(x[i] - shift) - beta * (w != nullptr ? w[i] : T{1});
  };
  if (!std::isfinite(shift)) {
    for (int64_t i = 0; i < n; ++i)
      out[i] = scalar(i);
    return;
  }
  const hn::ScalableTag<T> d;
  const auto shifts = hn::Set(d, shift);
  const auto alphas = hn::Set(d, alpha);
  const auto betas = hn::Set(d, beta);
  WriteRow<kStream>(
      out, n,
      [&](auto dv, int64_t i) HWY_ATTR {
        const auto shifted = hn::Min(hn::Sub(hn::LoadU(dv, x + i), shifts), hn::Zero(dv));
        const auto subtracted = w != nullptr ? hn::Mul(betas, hn::LoadU(dv, w + i)) : betas;
        return hn::MulSub(alphas, ExpNonPositive(dv, shifted), subtracted);
      },
      scalar);
}

/// dx[i] = y[i] (g[i] - s_i) (softmax), or g[i] - exp(y[i]) s_i (log-softmax, y <= 0 up to
/// rounding; a NaN in y stays NaN): a softmax's gradient given each value's sum over its lane,
/// s_i = sum(g y) or sum(g): sum_at(d, i) its vector at i, sum_of(i) its value.
template <bool kStream, typename T, typename SumAt, typename SumOf>
void SoftmaxGradValues(const T* y, const T* g, SumAt sum_at, SumOf sum_of, bool log, T* dx,
                       int64_t n) {
  if (!log) {
    return WriteRow<kStream>(
        dx, n,
        [&](auto dv, int64_t i) HWY_ATTR {
          return hn::Mul(hn::LoadU(dv, y + i), hn::Sub(hn::LoadU(dv, g + i), sum_at(dv, i)));
        },
        [&](int64_t i) { return y[i] * (g[i] - sum_of(i)); });
  }
  WriteRow<kStream>(
      dx, n,
      [&](auto dv, int64_t i) HWY_ATTR {
        const auto yv = hn::LoadU(dv, y + i);
        const auto e = ExpNonPositive(dv, hn::Min(yv, hn::Zero(dv)));
        const auto result = hn::NegMulAdd(e, sum_at(dv, i), hn::LoadU(dv, g + i));
        return hn::IfThenElse(hn::IsNaN(yv), yv, result);
      },
      [&](int64_t i) { return g[i] - std::exp(y[i]) * sum_of(i); });
}

/// The gradient of one row given sum = sum(g y) or sum(g) (SoftmaxGradValues).
template <bool kStream, typename T>
void SoftmaxGradRow(const T* y, const T* g, T sum, bool log, T* dx, int64_t n) {
  SoftmaxGradValues<kStream>(
      y, g, [&](auto dv, int64_t) HWY_ATTR { return hn::Set(dv, sum); },
      [&](int64_t) { return sum; }, log, dx, n);
}

/// Rows whose products (or gradients) a softmax gradient across rows adds in T before the total
/// goes to double (blocked summation, as SumRows' f32 blocks of 32 rows).
constexpr int64_t kGradBlockRows = 32;

/// The gradient of a softmax (not log-softmax) across rows: for each column i < n of the rows at
/// y and g (stride apart), s_i = the sum over the rows of g y, row by row into block (n values of
/// T) in blocks of kGradBlockRows rows, the blocks added in double into totals (n doubles), then
/// dx (the same layout) row by row as SoftmaxGradValues with s_i per column, y and g found in
/// cache. While row k of dx is written, row k of the next block of columns (at next_y and next_g,
/// next_n columns; 0: none) is fetched toward L2, as SoftmaxColumns does. (Log-softmax, whose
/// second pass computes an exponential per value, ran slower this way than the backward rule's
/// composite along dim 1 of [16, 1024, 1024] on a Zen 3 VM, and keeps the composite.)
template <bool kStream, typename T>
void SoftmaxGradColumns(const T* y, const T* g, int64_t stride, int64_t rows, T* dx, int64_t n,
                        double* totals, T* block, const T* next_y, const T* next_g,
                        int64_t next_n) {
  const hn::ScalableTag<T> d;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  std::fill(totals, totals + n, 0.0);
  for (int64_t k0 = 0; k0 < rows; k0 += kGradBlockRows) {
    for (int64_t k = k0; k < std::min(rows, k0 + kGradBlockRows); ++k) {
      const T* gk = g + k * stride;
      const T* yk = y + k * stride;
      int64_t i = 0;
      for (; i + lanes <= n; i += lanes) {
        const auto acc = k == k0 ? hn::Zero(d) : hn::LoadU(d, block + i);
        const auto gv = hn::LoadU(d, gk + i);
        hn::StoreU(hn::MulAdd(gv, hn::LoadU(d, yk + i), acc), d, block + i);
      }
      for (; i < n; ++i)
        block[i] = (k == k0 ? T{0} : block[i]) + gk[i] * yk[i];
    }
    for (int64_t j = 0; j < n; ++j)
      totals[j] += static_cast<double>(block[j]);
  }
  for (int64_t j = 0; j < n; ++j)
    block[j] = static_cast<T>(totals[j]);
  for (int64_t k = 0; k < rows; ++k) {
    SoftmaxGradValues<kStream>(
        y + k * stride, g + k * stride,
        [&](auto dv, int64_t i) HWY_ATTR { return hn::LoadU(dv, block + i); },
        [&](int64_t i) { return block[i]; }, false, dx + k * stride, n);
    if (next_n > 0) {
      fetch_toward_l2(next_y + k * stride, next_n);
      fetch_toward_l2(next_g + k * stride, next_n);
    }
  }
}

/// Softmax's last pass: out = e / sum, or x - max - log(sum).
template <bool kStream, typename T>
void WriteSoftmax(const T* x, const T* e, T* out, int64_t n, T max, T sum, bool log) {
  if (log) {
    const T log_sum = std::log(sum);
    return WriteRow<kStream>(
        out, n,
        [&](auto d, int64_t i) HWY_ATTR {
          return hn::Sub(hn::Sub(hn::LoadU(d, x + i), hn::Set(d, max)), hn::Set(d, log_sum));
        },
        [&](int64_t i) { return x[i] - max - log_sum; });
  }
  // A multiplication by 1 / sum (a rounding more than e / sum) costs a fraction of a division.
  const T inverse = T{1} / sum;
  WriteRow<kStream>(
      out, n,
      [&](auto d, int64_t i) HWY_ATTR { return hn::Mul(hn::LoadU(d, e + i), hn::Set(d, inverse)); },
      [&](int64_t i) { return e[i] * inverse; });
}

/// Reads x from memory once: its maximum, then (x in cache) the exponentials into scratch (or
/// out; log-softmax only needs their sum) and their sum, then the result, written once. The next
/// row (n elements; null: none) is fetched toward L2 meanwhile, so that memory keeps reading while
/// the exponentials compute.
template <typename T>
void Softmax(const T* x, T* out, int64_t n, bool log, T* scratch, const T* next) {
  const T max = Extreme(x, n, true);
  if (next != nullptr) fetch_toward_l2(next, n);
  T* e = scratch != nullptr ? scratch : out;
  const auto sum =
      static_cast<T>(log ? ExpShiftedSum<false>(x, max, e, n) : ExpShiftedSum<true>(x, max, e, n));
  if (scratch != nullptr) return WriteSoftmax<true>(x, e, out, n, max, sum, log);
  WriteSoftmax<false>(x, e, out, n, max, sum, log);
}

using simd::kSoftmaxGroupRows;

/// Where a softmax across rows keeps its state in scratch (softmax_columns_scratch's elements):
/// per column the running maximum, the sum (then its inverse or log), what its compensated
/// additions lost, and the current group's factor; per group of kSoftmaxGroupRows rows its maximum;
/// and, for softmax, every row's exponentials, e_stride apart (log-softmax needs only their sums).
template <typename T>
struct ColumnScratch {
  T* max;
  T* sum;
  T* factor;
  T* lost;
  T* group_max;
  T* e;
  int64_t e_stride;

  ColumnScratch(T* scratch, int64_t rows, int64_t n, bool log)
      : max(scratch),
        sum(max + n),
        factor(sum + n),
        lost(factor + n),
        group_max(lost + n),
        e(log ? nullptr : group_max + ceil_div(rows, kSoftmaxGroupRows) * n),
        e_stride(simd::softmax_exponentials_stride<T>(n)) {}
};

/// Pass 1 of a softmax across rows, online, in one read of the rows: for each column i < n of the
/// rows at first (stride apart), its maximum and the sum over the rows of exp(x - maximum).
/// kSoftmaxGroupRows rows at a time: their maximum raises the running one (kept as the group's),
/// whose exponential difference rescales the sum before their exponentials (stored for softmax,
/// relative to the group's maximum) are added. The sums are f32 with compensated additions of
/// the groups (the online rescaling leaves no place for double blocks): across 60000 rows the
/// log-sums stay within 2 f32 units of the reference's. A column holding a NaN or an infinity, and
/// each column after the last whole vector, gets the sum NaN, for ExactColumns.
template <typename T>
void OnlineColumnStats(const T* first, int64_t stride, int64_t rows, const ColumnScratch<T>& s,
                       int64_t n) {
  const hn::ScalableTag<T> d;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto zero = hn::Zero(d);
  const int64_t whole = n / lanes * lanes;
  for (int64_t k0 = 0; k0 < rows; k0 += kSoftmaxGroupRows) {
    const T* row = first + k0 * stride;
    const int64_t group = std::min(kSoftmaxGroupRows, rows - k0);
    T* group_max = s.group_max + k0 / kSoftmaxGroupRows * n;
    for (int64_t i = 0; i < whole; i += lanes) {
      // x * 0 is NaN where x is NaN or infinite (the exponentials below assume neither).
      auto raised = hn::LoadU(d, row + i);
      auto poison = hn::Mul(raised, zero);
      for (int64_t g = 1; g < group; ++g) {
        const auto v = hn::LoadU(d, row + g * stride + i);
        raised = hn::Max(raised, v);
        poison = hn::MulAdd(v, zero, poison);
      }
      const auto previous = k0 > 0 ? hn::LoadU(d, s.max + i) : raised;
      raised = hn::Max(previous, raised);
      auto group_sum = poison;  // 0, or NaN
      for (int64_t g = 0; g < group; ++g) {
        const auto v = ExpNonPositive(d, hn::Sub(hn::LoadU(d, row + g * stride + i), raised));
        if (s.e != nullptr) hn::StoreU(v, d, s.e + (k0 + g) * s.e_stride + i);
        group_sum = hn::Add(group_sum, v);
      }
      // The running sum, rescaled, plus the group's, compensated (Kahan: lost keeps what each
      // addition rounded away), so that many groups add up within f32's tolerance.
      auto total = group_sum;  // the first group has no sum to rescale
      auto lost = zero;
      if (k0 > 0) {
        const auto scale = ExpNonPositive(d, hn::Sub(previous, raised));
        const auto earlier = hn::Mul(hn::LoadU(d, s.sum + i), scale);
        const auto added = hn::Sub(group_sum, hn::Mul(hn::LoadU(d, s.lost + i), scale));
        total = hn::Add(earlier, added);
        lost = hn::Sub(hn::Sub(total, earlier), added);
      }
      hn::StoreU(raised, d, s.max + i);
      hn::StoreU(raised, d, group_max + i);
      hn::StoreU(total, d, s.sum + i);
      hn::StoreU(lost, d, s.lost + i);
    }
  }
  std::fill(s.sum + whole, s.sum + n, std::numeric_limits<T>::quiet_NaN());
}

/// The maximum and sum again for the columns whose online sum is not finite, as the reference:
/// the first NaN or the maximum, then the exponentials from the standard library (NaN where the
/// maximum is not finite, as ndarray's), added in double. Their group maxima become NaN: the last
/// pass computes these columns from the input as well.
template <typename T>
void ExactColumns(const T* first, int64_t stride, int64_t rows, const ColumnScratch<T>& s,
                  int64_t n) {
  const hn::ScalableTag<T> d;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  for (int64_t i = 0; i < n; ++i) {
    // Whole vectors of finite sums (nearly every column) are skipped a vector at a time.
    while (i + lanes <= n && hn::AllTrue(d, hn::IsFinite(hn::LoadU(d, s.sum + i))))
      i += lanes;
    if (i == n || std::isfinite(s.sum[i])) continue;
    T best = first[i];
    for (int64_t k = 1; k < rows; ++k)
      best = BetterValue(first[k * stride + i], best, true);
    double total = 0.0;
    for (int64_t k = 0; k < rows; ++k)
      total += static_cast<double>(std::exp(first[k * stride + i] - best));
    s.max[i] = best;
    s.sum[i] = static_cast<T>(total);
    for (int64_t g = 0; g < ceil_div(rows, kSoftmaxGroupRows); ++g)
      s.group_max[g * n + i] = std::numeric_limits<T>::quiet_NaN();
  }
}

/// factor[i] = exp(group_max[i] - max[i]) * inverse[i]: what turns a group's stored exponentials
/// into the softmax; NaN for the columns ExactColumns computed.
template <typename T>
void GroupFactors(const T* group_max, const ColumnScratch<T>& s, int64_t n) {
  const hn::ScalableTag<T> d;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto nan = hn::Set(d, std::numeric_limits<T>::quiet_NaN());
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto g = hn::LoadU(d, group_max + i);
    const auto scale = ExpNonPositive(d, hn::Sub(g, hn::LoadU(d, s.max + i)));
    hn::StoreU(hn::IfThenElse(hn::IsFinite(g), hn::Mul(scale, hn::LoadU(d, s.sum + i)), nan), d,
               s.factor + i);
  }
  for (; i < n; ++i) {
    s.factor[i] = std::isfinite(group_max[i]) ? std::exp(group_max[i] - s.max[i]) * s.sum[i]
                                              : std::numeric_limits<T>::quiet_NaN();
  }
}

/// x[j] = log(x[j]) (log) or 1 / x[j], j < n, a vector at a time: a softmax across rows takes one
/// per column, and along dim 0 of [16, 1024, 1024] (one per 16 values) a scalar std::log was a
/// twelfth of log-softmax's time. Highway's Log (a few ULP) where every lane of a vector is a
/// normal positive float, the range flex's loops trust it in (highway_log.h); the standard
/// library's otherwise (a column whose sum is NaN or infinite). The inverse is exact either way.
template <typename T>
void LogOrInverse(T* x, int64_t n, bool log) {
  const hn::ScalableTag<T> d;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto smallest = hn::Set(d, std::numeric_limits<T>::min());
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto v = hn::LoadU(d, x + i);
    if (!log) {
      hn::StoreU(hn::Div(hn::Set(d, T{1}), v), d, x + i);
      continue;
    }
    if (hn::AllTrue(d, hn::And(hn::IsFinite(v), hn::Ge(v, smallest)))) {
      hn::StoreU(hn::Log(d, v), d, x + i);
      continue;
    }
    for (int64_t j = i; j < i + lanes; ++j)
      x[j] = std::log(x[j]);
  }
  for (; i < n; ++i)
    x[i] = log ? std::log(x[i]) : T{1} / x[i];
}

/// Softmax (or log-softmax) of each column i < n of the rows at first (stride apart), as
/// Softmax's rows, in two passes: the columns' maxima and sums online (the rows read from memory,
/// softmax's exponentials stored in scratch), then out (the same layout as the input) written
/// once from scratch or the rows in cache, with streaming stores if kStream. While the last pass
/// writes row k, row k of the next block (next, next_n columns, the same rows and stride; null:
/// none) is fetched toward L2, so that memory keeps reading while this block computes (see
/// fetch_toward_l2).
template <bool kStream, typename T>
void SoftmaxColumns(const T* first, int64_t stride, int64_t rows, T* out, int64_t n, bool log,
                    T* scratch, const T* next, int64_t next_n) {
  const ColumnScratch<T> s(scratch, rows, n, log);
  OnlineColumnStats(first, stride, rows, s, n);
  ExactColumns(first, stride, rows, s, n);
  // Softmax multiplies by the sums' inverses (see WriteSoftmax).
  LogOrInverse(s.sum, n, log);
  const T* max = s.max;
  const T* sum = s.sum;
  const T* factor = s.factor;
  for (int64_t k = 0; k < rows; ++k) {
    const T* x = first + k * stride;
    if (log) {
      WriteRow<kStream>(
          out + k * stride, n,
          [&](auto d, int64_t i) HWY_ATTR {
            return hn::Sub(hn::Sub(hn::LoadU(d, x + i), hn::LoadU(d, max + i)),
                           hn::LoadU(d, sum + i));
          },
          [&](int64_t i) { return x[i] - max[i] - sum[i]; });
    } else {
      if (k % kSoftmaxGroupRows == 0) GroupFactors(s.group_max + k / kSoftmaxGroupRows * n, s, n);
      const T* ek = s.e + k * s.e_stride;
      const auto lane = [&](int64_t i) {
        return std::isnan(factor[i]) ? std::exp(x[i] - max[i]) * sum[i] : ek[i] * factor[i];
      };
      WriteRow<kStream>(
          out + k * stride, n,
          [&](auto d, int64_t i) HWY_ATTR {
            const auto f = hn::LoadU(d, factor + i);
            if (HWY_LIKELY(hn::AllFalse(d, hn::IsNaN(f)))) return hn::Mul(hn::LoadU(d, ek + i), f);
            HWY_ALIGN T values[kMaxLanes<T>];
            for (int64_t j = 0; j < static_cast<int64_t>(hn::Lanes(d)); ++j)
              values[j] = lane(i + j);
            return hn::Load(d, values);
          },
          lane);
    }
    if (next != nullptr) fetch_toward_l2(next + k * stride, next_n);
  }
}

double SumF32(const float* x, int64_t n) {
  return Sum(x, n);
}
double SumF64(const double* x, int64_t n) {
  return Sum(x, n);
}
double SumBFloat16(const BFloat16* x, int64_t n) {
  return Sum(x, n);
}
double SumHalf(const Half* x, int64_t n) {
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
double SquaredDeviationsF32(const float* x, int64_t n, double mean) {
  return SquaredDeviations(x, n, mean);
}
double SquaredDeviationsF64(const double* x, int64_t n, double mean) {
  return SquaredDeviations(x, n, mean);
}
int64_t ArgExtremeF32(const float* x, int64_t n, bool maximum) {
  return ArgExtreme(x, n, maximum);
}
int64_t ArgExtremeF64(const double* x, int64_t n, bool maximum) {
  return ArgExtreme(x, n, maximum);
}
void SoftmaxColumnsF32(const float* first, int64_t stride, int64_t rows, float* out, int64_t n,
                       bool log, float* scratch, bool stream, const float* next, int64_t next_n) {
  if (stream) return SoftmaxColumns<true>(first, stride, rows, out, n, log, scratch, next, next_n);
  SoftmaxColumns<false>(first, stride, rows, out, n, log, scratch, next, next_n);
}
void SoftmaxColumnsF64(const double* first, int64_t stride, int64_t rows, double* out, int64_t n,
                       bool log, double* scratch, bool stream, const double* next, int64_t next_n) {
  if (stream) return SoftmaxColumns<true>(first, stride, rows, out, n, log, scratch, next, next_n);
  SoftmaxColumns<false>(first, stride, rows, out, n, log, scratch, next, next_n);
}
double ExpShiftedSumF32(const float* x, float shift, int64_t n) {
  return ExpShiftedSum<false>(x, shift, static_cast<float*>(nullptr), n);
}
double ExpShiftedSumF64(const double* x, double shift, int64_t n) {
  return ExpShiftedSum<false>(x, shift, static_cast<double*>(nullptr), n);
}
void ScaledExpRowF32(const float* x, float shift, float alpha, const float* w, float beta,
                     float* out, int64_t n, bool stream) {
  if (stream) return ScaledExpRow<true>(x, shift, alpha, w, beta, out, n);
  ScaledExpRow<false>(x, shift, alpha, w, beta, out, n);
}
void ScaledExpRowF64(const double* x, double shift, double alpha, const double* w, double beta,
                     double* out, int64_t n, bool stream) {
  if (stream) return ScaledExpRow<true>(x, shift, alpha, w, beta, out, n);
  ScaledExpRow<false>(x, shift, alpha, w, beta, out, n);
}
void SoftmaxGradRowF32(const float* y, const float* g, float sum, bool log, float* dx, int64_t n,
                       bool stream) {
  if (stream) return SoftmaxGradRow<true>(y, g, sum, log, dx, n);
  SoftmaxGradRow<false>(y, g, sum, log, dx, n);
}
void SoftmaxGradRowF64(const double* y, const double* g, double sum, bool log, double* dx,
                       int64_t n, bool stream) {
  if (stream) return SoftmaxGradRow<true>(y, g, sum, log, dx, n);
  SoftmaxGradRow<false>(y, g, sum, log, dx, n);
}
template <typename T>
void SoftmaxGradColumnsOf(const T* y, const T* g, int64_t stride, int64_t rows, T* dx, int64_t n,
                          double* totals, T* block, bool stream, const T* next_y, const T* next_g,
                          int64_t next_n) {
  if (stream) {
    return SoftmaxGradColumns<true>(y, g, stride, rows, dx, n, totals, block, next_y, next_g,
                                    next_n);
  }
  SoftmaxGradColumns<false>(y, g, stride, rows, dx, n, totals, block, next_y, next_g, next_n);
}
void SoftmaxGradColumnsF32(const float* y, const float* g, int64_t stride, int64_t rows, float* dx,
                           int64_t n, double* totals, float* block, bool stream,
                           const float* next_y, const float* next_g, int64_t next_n) {
  SoftmaxGradColumnsOf(y, g, stride, rows, dx, n, totals, block, stream, next_y, next_g, next_n);
}
void SoftmaxGradColumnsF64(const double* y, const double* g, int64_t stride, int64_t rows,
                           double* dx, int64_t n, double* totals, double* block, bool stream,
                           const double* next_y, const double* next_g, int64_t next_n) {
  SoftmaxGradColumnsOf(y, g, stride, rows, dx, n, totals, block, stream, next_y, next_g, next_n);
}
void SoftmaxF32(const float* x, float* out, int64_t n, bool log, float* scratch,
                const float* next) {
  Softmax(x, out, n, log, scratch, next);
}
void SoftmaxF64(const double* x, double* out, int64_t n, bool log, double* scratch,
                const double* next) {
  Softmax(x, out, n, log, scratch, next);
}

}  // namespace ember::flex::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ember::flex::simd {

HWY_EXPORT(SumF32);
HWY_EXPORT(SumF64);
HWY_EXPORT(SumBFloat16);
HWY_EXPORT(SumHalf);
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
HWY_EXPORT(SquaredDeviationsF32);
HWY_EXPORT(SquaredDeviationsF64);
HWY_EXPORT(ArgExtremeF32);
HWY_EXPORT(ArgExtremeF64);
HWY_EXPORT(SoftmaxColumnsF32);
HWY_EXPORT(SoftmaxColumnsF64);
HWY_EXPORT(SoftmaxF32);
HWY_EXPORT(ExpShiftedSumF32);
HWY_EXPORT(ExpShiftedSumF64);
HWY_EXPORT(ScaledExpRowF32);
HWY_EXPORT(ScaledExpRowF64);
HWY_EXPORT(SoftmaxGradRowF32);
HWY_EXPORT(SoftmaxGradRowF64);
HWY_EXPORT(SoftmaxGradColumnsF32);
HWY_EXPORT(SoftmaxGradColumnsF64);

void softmax_grad_row(const float* y, const float* g, float sum, bool log, float* dx, int64_t n,
                      bool stream) {
  HWY_DYNAMIC_DISPATCH(SoftmaxGradRowF32)(y, g, sum, log, dx, n, stream);
}
void softmax_grad_row(const double* y, const double* g, double sum, bool log, double* dx, int64_t n,
                      bool stream) {
  HWY_DYNAMIC_DISPATCH(SoftmaxGradRowF64)(y, g, sum, log, dx, n, stream);
}
void softmax_grad_columns(const float* y, const float* g, int64_t stride, int64_t rows, float* dx,
                          int64_t n, double* totals, float* block, bool stream, const float* next_y,
                          const float* next_g, int64_t next_n) {
  HWY_DYNAMIC_DISPATCH(SoftmaxGradColumnsF32)
  (y, g, stride, rows, dx, n, totals, block, stream, next_y, next_g, next_n);
}
void softmax_grad_columns(const double* y, const double* g, int64_t stride, int64_t rows,
                          double* dx, int64_t n, double* totals, double* block, bool stream,
                          const double* next_y, const double* next_g, int64_t next_n) {
  HWY_DYNAMIC_DISPATCH(SoftmaxGradColumnsF64)
  (y, g, stride, rows, dx, n, totals, block, stream, next_y, next_g, next_n);
}

double exp_shifted_sum(const float* x, float shift, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(ExpShiftedSumF32)(x, shift, n);
}
double exp_shifted_sum(const double* x, double shift, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(ExpShiftedSumF64)(x, shift, n);
}
void scaled_exp_row(const float* x, float shift, float alpha, const float* w, float beta,
                    float* out, int64_t n, bool stream) {
  HWY_DYNAMIC_DISPATCH(ScaledExpRowF32)(x, shift, alpha, w, beta, out, n, stream);
}
void scaled_exp_row(const double* x, double shift, double alpha, const double* w, double beta,
                    double* out, int64_t n, bool stream) {
  HWY_DYNAMIC_DISPATCH(ScaledExpRowF64)(x, shift, alpha, w, beta, out, n, stream);
}
HWY_EXPORT(SoftmaxF64);

double sum(const float* x, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(SumF32)(x, n);
}
double sum(const double* x, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(SumF64)(x, n);
}
double sum(const BFloat16* x, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(SumBFloat16)(x, n);
}
double sum(const Half* x, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(SumHalf)(x, n);
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
double squared_deviations(const float* x, int64_t n, double mean) {
  return HWY_DYNAMIC_DISPATCH(SquaredDeviationsF32)(x, n, mean);
}
double squared_deviations(const double* x, int64_t n, double mean) {
  return HWY_DYNAMIC_DISPATCH(SquaredDeviationsF64)(x, n, mean);
}
int64_t arg_extreme(const float* x, int64_t n, bool maximum) {
  return HWY_DYNAMIC_DISPATCH(ArgExtremeF32)(x, n, maximum);
}
int64_t arg_extreme(const double* x, int64_t n, bool maximum) {
  return HWY_DYNAMIC_DISPATCH(ArgExtremeF64)(x, n, maximum);
}
void softmax_columns(const float* first, int64_t stride, int64_t rows, float* out, int64_t n,
                     bool log, float* scratch, bool stream, const float* next, int64_t next_n) {
  HWY_DYNAMIC_DISPATCH(SoftmaxColumnsF32)
  (first, stride, rows, out, n, log, scratch, stream, next, next_n);
}
void softmax_columns(const double* first, int64_t stride, int64_t rows, double* out, int64_t n,
                     bool log, double* scratch, bool stream, const double* next, int64_t next_n) {
  HWY_DYNAMIC_DISPATCH(SoftmaxColumnsF64)
  (first, stride, rows, out, n, log, scratch, stream, next, next_n);
}
void softmax(const float* x, float* out, int64_t n, bool log, float* scratch, const float* next) {
  HWY_DYNAMIC_DISPATCH(SoftmaxF32)(x, out, n, log, scratch, next);
}
void softmax(const double* x, double* out, int64_t n, bool log, double* scratch,
             const double* next) {
  HWY_DYNAMIC_DISPATCH(SoftmaxF64)(x, out, n, log, scratch, next);
}

}  // namespace ember::flex::simd
#endif  // HWY_ONCE
