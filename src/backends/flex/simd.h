// SIMD loops over contiguous f32 / f64 arrays, written with Highway and dispatched at run time
// to the best instruction set of the CPU (SSE4, AVX2, AVX-512). Transcendental functions use
// Highway's math library (a few ULP) inside its documented valid range; lanes outside it (and
// NaN, infinities) are computed with the standard library, so special values come out exactly
// as ndarray's. Each has_* tells which variants are covered; the callers leave the rest to
// ndarray.
#pragma once

#include <cstdint>

#include "ir/ops.h"

namespace ember::flex::simd {

bool has_unary(ir::UnaryOp op);
/// out[i] = op(x[i]), i < n.
void unary(ir::UnaryOp op, const float* x, float* out, int64_t n);
void unary(ir::UnaryOp op, const double* x, double* out, int64_t n);

bool has_binary(ir::BinaryOp op);
/// out[i] = a[i * a_step] op b[i * b_step], i < n; a step is 1, or 0 for a broadcast value.
void binary(ir::BinaryOp op, const float* a, int64_t a_step, const float* b, int64_t b_step,
            float* out, int64_t n);
void binary(ir::BinaryOp op, const double* a, int64_t a_step, const double* b, int64_t b_step,
            double* out, int64_t n);

/// out[i] = a[i * a_step] op b[i * b_step] (C++'s comparisons: NaN is unequal to everything).
void compare(ir::CompareOp op, const float* a, int64_t a_step, const float* b, int64_t b_step,
             bool* out, int64_t n);
void compare(ir::CompareOp op, const double* a, int64_t a_step, const double* b, int64_t b_step,
             bool* out, int64_t n);

/// Whether activation covers op for f32 (f64 when is_f64).
bool has_activation(const ir::Activation& op, bool is_f64);
/// out[i] = op(x[i]), computed as ndarray does in the element type.
void activation(const ir::Activation& op, const float* x, float* out, int64_t n);
void activation(const ir::Activation& op, const double* x, double* out, int64_t n);

/// The sum of x[0, n) in double.
double sum(const float* x, int64_t n);
double sum(const double* x, int64_t n);
/// acc[i] += row[i], i < n (acc in double).
void add_row(const float* row, double* acc, int64_t n);
void add_row(const double* row, double* acc, int64_t n);
/// The maximum (or minimum) of x[0, n), n >= 1; NaN when x holds one.
float extreme(const float* x, int64_t n, bool maximum);
double extreme(const double* x, int64_t n, bool maximum);
/// acc[i] = the maximum (or minimum) of acc[i] and row[i], NaN winning; i < n.
void extreme_row(const float* row, float* acc, int64_t n, bool maximum);
void extreme_row(const double* row, double* acc, int64_t n, bool maximum);
/// Softmax (or log-softmax) of x[0, n) into out, n >= 1: exp(x - max) / sum, or
/// x - max - log(sum), sum = sum(exp(x - max)).
void softmax(const float* x, float* out, int64_t n, bool log);
void softmax(const double* x, double* out, int64_t n, bool log);

}  // namespace ember::flex::simd
