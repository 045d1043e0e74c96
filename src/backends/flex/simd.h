// SIMD loops over contiguous f32 / f64 arrays, written with Highway and dispatched at run time
// to the best instruction set of the CPU (SSE4, AVX2, AVX-512). Transcendental functions use
// Highway's math library (a few ULP) inside its documented valid range; lanes outside it (and
// NaN, infinities) are computed with the standard library, so special values come out exactly
// as ndarray's. Each has_* tells which variants are covered; the callers leave the rest to
// ndarray.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ember/float16.h"
#include "ir/ops.h"

namespace ember::flex::simd {

/// Whether the loops' multiply-adds round once: true where the target they run on has FMA
/// (AVX2, AVX-512, NEON), false on SSE4 or the sanitizer build's baseline target. The values of
/// f32 tanh, exp and the activations depend on it (jit_program.h matches them only when true).
bool multiply_add_is_fused();

/// Whether unary covers op: every float op (formula::is_float_unary).
bool has_unary(ir::UnaryOp op);
/// out[i] = op(x[i]), i < n, by op's formula (ir/formulas.h).
void unary(ir::UnaryOp op, const float* x, float* out, int64_t n);
void unary(ir::UnaryOp op, const double* x, double* out, int64_t n);

/// Whether binary covers op: every float op (formula::is_float_binary), by its formula.
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

/// dst[0, bytes) = src[0, bytes) with streaming stores, which bypass the caches: for results too
/// large to stay there, so that writing them costs no read of the lines first. Call
/// hwy::FlushStream() before another thread reads dst.
void stream_copy(const std::byte* src, std::byte* dst, int64_t bytes);

/// Bytes of stream_fill's pattern: a multiple of every element size and of every vector's bytes.
inline constexpr int64_t kFillPattern = 64;
/// dst[0, bytes) filled with streaming stores (as stream_copy) with copies of one value: byte i is
/// pattern[(address of dst + i) % kFillPattern], pattern holding the value's bytes repeated from
/// an address that is a multiple of kFillPattern (dst is a whole number of elements past one).
void stream_fill(std::byte* dst, int64_t bytes, const std::byte* pattern);

/// dst[i] = float(src[i]), i < n: exact (simd_convert.cpp).
void widen(const BFloat16* src, float* dst, int64_t n);
void widen(const Half* src, float* dst, int64_t n);
/// dst[i] = BFloat16(src[i]) / Half(src[i]), i < n: round to nearest even, bit for bit those
/// types' constructors (bfloat16_bits.h, half_bits.h).
void narrow(const float* src, BFloat16* dst, int64_t n);
void narrow(const float* src, Half* dst, int64_t n);
/// x[i] = float(BFloat16(x[i])) / float(Half(x[i])), i < n, in place, without storing the 16 bits.
void round_to_bfloat16(float* x, int64_t n);
void round_to_half(float* x, int64_t n);

/// out[i] = ir::random_element<float>(d, key, first + i), i < n, bit for bit (simd_random.cpp):
/// Philox4x32-10 on a vector of elements at once, then the distribution's formula on the vector:
/// the default and Bernoulli everywhere, the uniform and the normal where the CPU has FMA (their
/// formulas round fused multiply-adds once); the scalar formulas elsewhere.
void random(const Distribution& d, uint64_t key, uint64_t first, float* out, int64_t n);
/// z[i] = ir::standard_normal(radius[i], angle[i]) (f32), i < n: random's normals from their
/// uniforms, on vectors where the CPU has FMA, so that a test can compare them with the scalar
/// function for every input.
void standard_normal(const float* radius, const float* angle, float* z, int64_t n);

/// out[i] = op(x[i]), computed by its formula (ir/formulas.h) in the element type, as ndarray does
/// (every activation).
void activation(const ir::Activation& op, const float* x, float* out, int64_t n);
void activation(const ir::Activation& op, const double* x, double* out, int64_t n);

/// The sum of x[0, n) in double. f32 adds blocks of a few vectors in f32 first: the error stays
/// under about 3 * 2^-24 * sum|x|, and an overflowing block falls back to summing in double. bf16
/// and f16 are widened in registers and summed as f32: the sum of their f32 copy, bit for bit.
double sum(const float* x, int64_t n);
double sum(const double* x, int64_t n);
double sum(const BFloat16* x, int64_t n);
double sum(const Half* x, int64_t n);
/// sums[r] = sum(x + r * n, n), r < rows: f32 reads several rows at once on CPUs where that is
/// faster than one long stream (simd_reduce.cpp's kRowsAtOnce).
void row_sums(const float* x, int64_t rows, int64_t n, double* sums);
void row_sums(const double* x, int64_t rows, int64_t n, double* sums);
/// acc[i] += row[i], i < n (f32 widened to double).
void add_row(const float* row, double* acc, int64_t n);
/// The maximum (or minimum) of x[0, n), n >= 1; NaN when x holds one.
float extreme(const float* x, int64_t n, bool maximum);
double extreme(const double* x, int64_t n, bool maximum);

// Whole rows reduced column by column: row k holds first[k * stride + i], i < n, rows >= 1. Each
// row is read once, contiguously, a few rows at a time; out may be the first row.

/// out[i] = the sum of the rows' column i, accumulated in the element type.
void sum_rows(const float* first, int64_t stride, int64_t rows, float* out, int64_t n);
void sum_rows(const double* first, int64_t stride, int64_t rows, double* out, int64_t n);
/// out[i] = the maximum (or minimum) of the rows' column i, NaN winning.
void extreme_rows(const float* first, int64_t stride, int64_t rows, float* out, int64_t n,
                  bool maximum);
void extreme_rows(const double* first, int64_t stride, int64_t rows, double* out, int64_t n,
                  bool maximum);
/// best[i] = the maximum (or minimum) of the rows' column i and index[i] the first row holding it
/// (the first NaN when the column holds one), as ndarray's scan finds it.
void arg_extreme_rows(const float* first, int64_t stride, int64_t rows, float* best, int32_t* index,
                      int64_t n, bool maximum);
void arg_extreme_rows(const double* first, int64_t stride, int64_t rows, double* best,
                      int64_t* index, int64_t n, bool maximum);

/// The sum of (x[i] - mean)^2, i < n: a variance's numerator (the deviations and their squares in
/// the element type, added into double every few vectors).
double squared_deviations(const float* x, int64_t n, double mean);
double squared_deviations(const double* x, int64_t n, double mean);

/// The first position of the maximum (or minimum) of x[0, n), n >= 1, or of its first NaN: as
/// ndarray's scan finds it, in one pass over x.
int64_t arg_extreme(const float* x, int64_t n, bool maximum);
int64_t arg_extreme(const double* x, int64_t n, bool maximum);

/// Softmax (or log-softmax) of x[0, n) into out, n >= 1: exp(x - max) / sum, or
/// x - max - log(sum), sum = sum(exp(x - max)), reading x from memory once (later passes find it
/// in cache). With scratch (n elements, best reused row after row so that it stays in cache), the
/// exponentials go there and out is written once with streaming stores: for results too large for
/// the caches (call hwy::FlushStream() before another thread reads out); with nullptr, through out.
/// next (n elements, or nullptr), the row to come, is fetched toward L2 while this one computes.
void softmax(const float* x, float* out, int64_t n, bool log, float* scratch, const float* next);
void softmax(const double* x, double* out, int64_t n, bool log, double* scratch,
             const double* next);
/// Rows a softmax across rows folds at once into its running maxima and sums: one rescaling
/// exponential per column and group.
inline constexpr int64_t kSoftmaxGroupRows = 8;
/// Elements apart a softmax across rows stores its exponentials' rows of n: n rounded up to whole
/// 64-byte lines, and a line more where those are even in number. A block's n is often a power of
/// two, and rows an even number of lines apart share the caches' sets with each other and with
/// the input's rows (along dim 0 of [16, 1024, 1024], 4096 columns: 25 ms unpadded, 12.7 ms
/// padded on a Zen 3 VM).
template <typename T>
int64_t softmax_exponentials_stride(int64_t n) {
  constexpr auto per_line = static_cast<int64_t>(64 / sizeof(T));
  const int64_t lines = (n + per_line - 1) / per_line;
  return (lines % 2 == 0 ? lines + 1 : lines) * per_line;
}
/// The scratch elements softmax_columns needs per column of rows rows, besides the exponentials:
/// a maximum per group of kSoftmaxGroupRows rows, and four values.
inline int64_t softmax_column_state(int64_t rows) {
  return (rows + kSoftmaxGroupRows - 1) / kSoftmaxGroupRows + 4;
}
/// The scratch elements of T softmax_columns needs for rows of n columns: its state per column and
/// the exponentials' rows, softmax_exponentials_stride apart.
template <typename T>
int64_t softmax_columns_scratch(int64_t rows, int64_t n) {
  return softmax_column_state(rows) * n + rows * softmax_exponentials_stride<T>(n);
}
/// Softmax (or log-softmax) of each column i < n across rows >= 1 rows, row k holding
/// first[k * stride + i], into out of the same layout: the same values as softmax's along
/// contiguous rows, with the input read from memory once if its rows * n values stay in cache
/// (its maxima and sums online, then the result). scratch holds softmax_columns_scratch<T>(rows, n)
/// elements; with stream, out is written with streaming stores
/// (call hwy::FlushStream() before another thread reads it). next (null: none) is the block the
/// caller reads next, next_n columns of the same rows and stride: fetched toward L2 meanwhile.
void softmax_columns(const float* first, int64_t stride, int64_t rows, float* out, int64_t n,
                     bool log, float* scratch, bool stream, const float* next, int64_t next_n);
void softmax_columns(const double* first, int64_t stride, int64_t rows, double* out, int64_t n,
                     bool log, double* scratch, bool stream, const double* next, int64_t next_n);

/// sum exp(x[i] - shift), i < n, in double: a log-sum-exp's sum from the row's maximum shift (the
/// standard library's exp where shift is not finite, as softmax's).
double exp_shifted_sum(const float* x, float shift, int64_t n);
double exp_shifted_sum(const double* x, double shift, int64_t n);
/// out[i] = alpha * exp(x[i] - shift) - beta * w[i] (w null: 1), for shift at least every x[i]
/// (the row's log-sum-exp): cross_entropy's gradient row but its target's term. With stream,
/// out is written with streaming stores (call hwy::FlushStream() before another thread reads it).
void scaled_exp_row(const float* x, float shift, float alpha, const float* w, float beta,
                    float* out, int64_t n, bool stream);
void scaled_exp_row(const double* x, double shift, double alpha, const double* w, double beta,
                    double* out, int64_t n, bool stream);

/// The gradient of one softmax row: dx[i] = y[i] (g[i] - sum) with sum = sum(g y), or for
/// log-softmax dx[i] = g[i] - exp(y[i]) sum with sum = sum(g), i < n (stream as
/// scaled_exp_row's).
void softmax_grad_row(const float* y, const float* g, float sum, bool log, float* dx, int64_t n,
                      bool stream);
void softmax_grad_row(const double* y, const double* g, double sum, bool log, double* dx, int64_t n,
                      bool stream);
/// The gradient of a softmax (not log-softmax) across rows: per column i < n of the rows at y and
/// g (row k at y + k * stride), s_i = the sum over the rows of g y, then dx (the same layout) as
/// softmax_grad_row's with s_i per column; y and g read from memory once if their rows * n values
/// stay in cache. totals holds n doubles, block n values (scratch). next_y and next_g (next_n
/// columns of the same rows and stride; 0: none) are the block the caller reads next: fetched
/// toward L2 meanwhile.
void softmax_grad_columns(const float* y, const float* g, int64_t stride, int64_t rows, float* dx,
                          int64_t n, double* totals, float* block, bool stream, const float* next_y,
                          const float* next_g, int64_t next_n);
void softmax_grad_columns(const double* y, const double* g, int64_t stride, int64_t rows,
                          double* dx, int64_t n, double* totals, double* block, bool stream,
                          const double* next_y, const double* next_g, int64_t next_n);

}  // namespace ember::flex::simd
