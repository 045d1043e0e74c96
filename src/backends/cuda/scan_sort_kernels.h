// The CUDA C sources of the ops that walk a line in order: the cumulative ops (each prefix
// accumulated in ndarray's order, so the values are ndarray's bit for bit), sort (a stable
// bitonic sort of a line in shared memory) and arange (a line's values from their positions).
// Each source is a function of its op and dtypes only, so the kernel cache compiles each once.
#pragma once

#include <cstdint>
#include <string>

#include "ember/dtype.h"
#include "ir/ops.h"

namespace ember::cuda {

/// The running op of x of dtype (any numeric dtype) along n, x and out seen as [rows, n, inner],
/// contiguous. Sums and products of a float dtype accumulate in double and round each prefix once
/// (ndarray's Accumulator); of an integer dtype they wrap. Max and min keep the first extreme, and
/// a NaN replaces anything seen before (ndarray's running_extreme).
///   ember_cumulative_rows(const T* x, T* out, long long rows, long long n)
///     inner == 1: a warp a row; each chunk of 32 is read and written by the warp at once, and
///     its elements accumulated in order through shuffles.
///   ember_cumulative_columns(const T* x, T* out, long long rows, long long n, long long inner)
///     a thread a (row, column) pair, neighbouring threads on neighbouring columns.
std::string cumulative_source(ir::CumulativeOp op, DType dtype);

/// ember_arange(T* out, long long n, long long start, long long step), dtype an integer dtype:
/// out[i] = start + i * step computed modulo 2^64 (ndarray's wrapping formula; ir::infer has
/// checked that every value fits dtype), converted to dtype.
std::string arange_source(DType dtype);

/// The longest line sort_source sorts; longer lines are sorted on the host.
inline constexpr int64_t kSortMaxLine = 4096;

/// The shared-memory capacity (a power of two, at least 32) that sorts a line of n <= kSortMaxLine
/// elements.
int64_t sort_capacity(int64_t n);

/// ember_sort(const T* x, T* values, I* indices, long long lines, long long n, long long inner)
/// for x of dtype (any dtype), indices of index_dtype, x seen as [lines / inner, n, inner]: a
/// block a line of n <= capacity elements (blockDim.x = sort_threads(capacity)), sorted in
/// shared memory as pairs (value, position) by a bitonic network. Pairs compare by value, NaN
/// the largest (ndarray's order), descending with the comparison's arguments swapped, and equal
/// values by position: the order of ndarray's stable sort.
std::string sort_source(DType dtype, DType index_dtype, bool descending, int64_t capacity);
unsigned sort_threads(int64_t capacity);

}  // namespace ember::cuda
