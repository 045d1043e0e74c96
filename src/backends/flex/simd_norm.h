// SIMD passes over one contiguous row of f32 / f64 for the fused row ops (norm.cpp,
// cross_entropy.cpp), written with Highway and dispatched at run time like simd.h's. A caller
// runs them one after the other on a row that stays in cache, so that the row is read from memory
// once.
#pragma once

#include <cstdint>

namespace ember::flex::simd {

/// y[i] = (x[i] - mean) * rstd * w[i] + b[i], i < n; w null: 1, b null: 0. With stream, y is
/// written with streaming stores (call hwy::FlushStream() before another thread reads it): for
/// results too large for the caches, so that no line of y is read first.
void normalize_row(const float* x, float* y, int64_t n, float mean, float rstd, const float* w,
                   const float* b, bool stream);
void normalize_row(const double* x, double* y, int64_t n, double mean, double rstd, const double* w,
                   const double* b, bool stream);

/// With xhat = (x - mean) * rstd and g = dy * w (w null: 1): sums = {sum g, sum g * xhat} in
/// double, and dw[i] += dy[i] * xhat[i], db[i] += dy[i] where they are not null.
void norm_grad_sums(const float* x, const float* dy, const float* w, int64_t n, float mean,
                    float rstd, float* dw, float* db, double* sums);
void norm_grad_sums(const double* x, const double* dy, const double* w, int64_t n, double mean,
                    double rstd, double* dw, double* db, double* sums);

/// dx[i] = (g[i] - g_mean - xhat[i] * gx_mean) * rstd, with xhat and g as norm_grad_sums'
/// (stream as normalize_row's).
void norm_grad_row(const float* x, const float* dy, const float* w, float* dx, int64_t n,
                   float mean, float rstd, float g_mean, float gx_mean, bool stream);
void norm_grad_row(const double* x, const double* dy, const double* w, double* dx, int64_t n,
                   double mean, double rstd, double g_mean, double gx_mean, bool stream);

/// sum a[i] * b[i], i < n, the products added in the element type a few vectors at a time.
double dot(const float* a, const float* b, int64_t n);
double dot(const double* a, const double* b, int64_t n);

}  // namespace ember::flex::simd
