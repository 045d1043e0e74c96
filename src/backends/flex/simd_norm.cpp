// Highway kernels of simd_norm.h: the passes of layer_norm / rms_norm and their gradient over one
// row that stays in cache between them, and a dot product for cross_entropy's smoothing term.
// Each pass runs in the element type, its sums added into double once per row.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/flex/simd_norm.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "backends/flex/simd_map-inl.h"
#include "backends/flex/simd_norm.h"

HWY_BEFORE_NAMESPACE();
namespace ember::flex::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

/// p[i..] as a vector, or ones where p is null (no affine weight).
template <class D, typename T>
HWY_INLINE hn::Vec<D> LoadOr(D d, const T* p, int64_t i, hn::Vec<D> otherwise) {
  return p != nullptr ? hn::LoadU(d, p + i) : otherwise;
}

template <typename T>
T ValueOr(const T* p, int64_t i, T otherwise) {
  return p != nullptr ? p[i] : otherwise;
}

/// WriteRow through streaming stores or not, as stream says.
template <typename T, class VecFn, class ScalarFn>
HWY_INLINE void WriteRowAs(bool stream, T* out, int64_t n, const VecFn& vec,
                           const ScalarFn& scalar) {
  if (stream) return WriteRow<true>(out, n, vec, scalar);
  WriteRow<false>(out, n, vec, scalar);
}

template <typename T>
void NormalizeRow(const T* x, T* y, int64_t n, T mean, T rstd, const T* w, const T* b,
                  bool stream) {
  const hn::ScalableTag<T> d;
  const auto means = hn::Set(d, mean);
  const auto rstds = hn::Set(d, rstd);
  const auto one = hn::Set(d, T{1});
  const auto zero = hn::Zero(d);
  WriteRowAs(
      stream, y, n,
      [&](auto dv, int64_t i) HWY_ATTR {
        const auto xhat = hn::Mul(hn::Sub(hn::LoadU(dv, x + i), means), rstds);
        return hn::MulAdd(xhat, LoadOr(dv, w, i, one), LoadOr(dv, b, i, zero));
      },
      [&](int64_t i) { return (x[i] - mean) * rstd * ValueOr(w, i, T{1}) + ValueOr(b, i, T{0}); });
}

template <typename T>
void NormGradSums(const T* x, const T* dy, const T* w, int64_t n, T mean, T rstd, T* dw, T* db,
                  double* sums) {
  const hn::ScalableTag<T> d;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto means = hn::Set(d, mean);
  const auto rstds = hn::Set(d, rstd);
  const auto one = hn::Set(d, T{1});
  auto g_sum = hn::Zero(d);
  auto gx_sum = hn::Zero(d);
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto xhat = hn::Mul(hn::Sub(hn::LoadU(d, x + i), means), rstds);
    const auto dyv = hn::LoadU(d, dy + i);
    const auto g = hn::Mul(dyv, LoadOr(d, w, i, one));
    g_sum = hn::Add(g_sum, g);
    gx_sum = hn::MulAdd(g, xhat, gx_sum);
    if (dw != nullptr) hn::StoreU(hn::MulAdd(dyv, xhat, hn::LoadU(d, dw + i)), d, dw + i);
    if (db != nullptr) hn::StoreU(hn::Add(dyv, hn::LoadU(d, db + i)), d, db + i);
  }
  double g_total = static_cast<double>(hn::GetLane(hn::SumOfLanes(d, g_sum)));
  double gx_total = static_cast<double>(hn::GetLane(hn::SumOfLanes(d, gx_sum)));
  for (; i < n; ++i) {
    const T xhat = (x[i] - mean) * rstd;
    const T g = dy[i] * ValueOr(w, i, T{1});
    g_total += static_cast<double>(g);
    gx_total += static_cast<double>(g * xhat);
    if (dw != nullptr) dw[i] += dy[i] * xhat;
    if (db != nullptr) db[i] += dy[i];
  }
  sums[0] = g_total;
  sums[1] = gx_total;
}

template <typename T>
void NormGradRow(const T* x, const T* dy, const T* w, T* dx, int64_t n, T mean, T rstd, T g_mean,
                 T gx_mean, bool stream) {
  const hn::ScalableTag<T> d;
  const auto means = hn::Set(d, mean);
  const auto rstds = hn::Set(d, rstd);
  const auto g_means = hn::Set(d, g_mean);
  const auto gx_means = hn::Set(d, gx_mean);
  const auto one = hn::Set(d, T{1});
  WriteRowAs(
      stream, dx, n,
      [&](auto dv, int64_t i) HWY_ATTR {
        const auto xhat = hn::Mul(hn::Sub(hn::LoadU(dv, x + i), means), rstds);
        const auto g = hn::Mul(hn::LoadU(dv, dy + i), LoadOr(dv, w, i, one));
        // rstd * (g - g_mean - xhat * gx_mean)
        return hn::Mul(hn::NegMulAdd(xhat, gx_means, hn::Sub(g, g_means)), rstds);
      },
      [&](int64_t i) {
        const T xhat = (x[i] - mean) * rstd;
        return (dy[i] * ValueOr(w, i, T{1}) - g_mean - xhat * gx_mean) * rstd;
      });
}

template <typename T>
double Dot(const T* a, const T* b, int64_t n) {
  const hn::ScalableTag<T> d;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  auto acc0 = hn::Zero(d);
  auto acc1 = hn::Zero(d);
  int64_t i = 0;
  for (; i + 2 * lanes <= n; i += 2 * lanes) {
    acc0 = hn::MulAdd(hn::LoadU(d, a + i), hn::LoadU(d, b + i), acc0);
    acc1 = hn::MulAdd(hn::LoadU(d, a + i + lanes), hn::LoadU(d, b + i + lanes), acc1);
  }
  double total = static_cast<double>(hn::GetLane(hn::SumOfLanes(d, hn::Add(acc0, acc1))));
  for (; i < n; ++i)
    total += static_cast<double>(a[i]) * static_cast<double>(b[i]);
  return total;
}

void NormalizeRowF32(const float* x, float* y, int64_t n, float mean, float rstd, const float* w,
                     const float* b, bool stream) {
  NormalizeRow(x, y, n, mean, rstd, w, b, stream);
}
void NormalizeRowF64(const double* x, double* y, int64_t n, double mean, double rstd,
                     const double* w, const double* b, bool stream) {
  NormalizeRow(x, y, n, mean, rstd, w, b, stream);
}
void NormGradSumsF32(const float* x, const float* dy, const float* w, int64_t n, float mean,
                     float rstd, float* dw, float* db, double* sums) {
  NormGradSums(x, dy, w, n, mean, rstd, dw, db, sums);
}
void NormGradSumsF64(const double* x, const double* dy, const double* w, int64_t n, double mean,
                     double rstd, double* dw, double* db, double* sums) {
  NormGradSums(x, dy, w, n, mean, rstd, dw, db, sums);
}
void NormGradRowF32(const float* x, const float* dy, const float* w, float* dx, int64_t n,
                    float mean, float rstd, float g_mean, float gx_mean, bool stream) {
  NormGradRow(x, dy, w, dx, n, mean, rstd, g_mean, gx_mean, stream);
}
void NormGradRowF64(const double* x, const double* dy, const double* w, double* dx, int64_t n,
                    double mean, double rstd, double g_mean, double gx_mean, bool stream) {
  NormGradRow(x, dy, w, dx, n, mean, rstd, g_mean, gx_mean, stream);
}
double DotF32(const float* a, const float* b, int64_t n) {
  return Dot(a, b, n);
}
double DotF64(const double* a, const double* b, int64_t n) {
  return Dot(a, b, n);
}

}  // namespace ember::flex::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ember::flex::simd {

HWY_EXPORT(NormalizeRowF32);
HWY_EXPORT(NormalizeRowF64);
HWY_EXPORT(NormGradSumsF32);
HWY_EXPORT(NormGradSumsF64);
HWY_EXPORT(NormGradRowF32);
HWY_EXPORT(NormGradRowF64);
HWY_EXPORT(DotF32);
HWY_EXPORT(DotF64);

void normalize_row(const float* x, float* y, int64_t n, float mean, float rstd, const float* w,
                   const float* b, bool stream) {
  HWY_DYNAMIC_DISPATCH(NormalizeRowF32)(x, y, n, mean, rstd, w, b, stream);
}
void normalize_row(const double* x, double* y, int64_t n, double mean, double rstd, const double* w,
                   const double* b, bool stream) {
  HWY_DYNAMIC_DISPATCH(NormalizeRowF64)(x, y, n, mean, rstd, w, b, stream);
}
void norm_grad_sums(const float* x, const float* dy, const float* w, int64_t n, float mean,
                    float rstd, float* dw, float* db, double* sums) {
  HWY_DYNAMIC_DISPATCH(NormGradSumsF32)(x, dy, w, n, mean, rstd, dw, db, sums);
}
void norm_grad_sums(const double* x, const double* dy, const double* w, int64_t n, double mean,
                    double rstd, double* dw, double* db, double* sums) {
  HWY_DYNAMIC_DISPATCH(NormGradSumsF64)(x, dy, w, n, mean, rstd, dw, db, sums);
}
void norm_grad_row(const float* x, const float* dy, const float* w, float* dx, int64_t n,
                   float mean, float rstd, float g_mean, float gx_mean, bool stream) {
  HWY_DYNAMIC_DISPATCH(NormGradRowF32)(x, dy, w, dx, n, mean, rstd, g_mean, gx_mean, stream);
}
void norm_grad_row(const double* x, const double* dy, const double* w, double* dx, int64_t n,
                   double mean, double rstd, double g_mean, double gx_mean, bool stream) {
  HWY_DYNAMIC_DISPATCH(NormGradRowF64)(x, dy, w, dx, n, mean, rstd, g_mean, gx_mean, stream);
}
double dot(const float* a, const float* b, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(DotF32)(a, b, n);
}
double dot(const double* a, const double* b, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(DotF64)(a, b, n);
}

}  // namespace ember::flex::simd
#endif  // HWY_ONCE
