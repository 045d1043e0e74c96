// The CUDA C sources of the cuda backend's own kernels: the ops that are not elementwise formulas
// (those come from src/codegen) and need a kernel of their own: strided copies (every layout op),
// float casts, reductions and softmax. Each source is a function of its op and dtypes only, so
// the kernel cache compiles each once. Kernel names and parameters are documented at each.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ember/distribution.h"
#include "ember/dtype.h"
#include "ir/ops.h"

namespace ember::cuda {

/// The definitions of one float element type under a prefix: <prefix>_t (storage), and
/// <prefix>_load(x) -> float or double, <prefix>_store(double) -> storage (a double rounded once
/// to dtype, as ember's conversions round it).
std::string element_type(DType dtype, std::string_view prefix);

/// Whether the softmax kernels take dtype (the float dtypes).
bool has_float_kernels(DType dtype);

/// ember_copy(const E* in, E* out, long long n, int rank, ember_dims sizes,
///            ember_dims in_strides, long long in_offset, ember_dims out_strides,
///            long long out_offset)
/// for elements of element_size bytes (1, 2, 4 or 8): out[out_offset + c . out_strides] =
/// in[in_offset + c . in_strides] for every coordinate c of sizes (n elements, rank <= 8);
/// and ember_transpose_copy(in, out, rank, sizes, in_strides, in_offset, out_strides,
///                          out_offset, int a, long long tiles_a, long long tiles_last,
///                          long long planes)
/// the same copy in 32 x 32 tiles of the plane of dims a and rank - 1 (tiles_a and tiles_last of
/// them along each; planes: the product of the other dims' sizes), for 256-thread blocks: fast
/// where the input is contiguous along a and the output along the last dim.
std::string copy_source(std::size_t element_size);

/// ember_fill(unsigned char* out, long long n, unsigned long long low, unsigned long long high):
/// n bytes at out (16-byte aligned) repeating the 16-byte pattern low, high (little-endian), 16
/// bytes a thread. An element of any size up to 16 that divides 16 repeats in such a pattern, so
/// one kernel fills every dtype, its value a kernel argument (a replayed graph patches it).
std::string fill_source();

/// ember_cast(const From* in, To* out, long long n): float dtypes to float dtypes, rounded to
/// nearest, ties to even (f64 to f16 and bf16 through f32, as ember's conversions do).
std::string cast_source(DType from, DType to);

/// Whether reduce_source takes op on dtype: every op on the float dtypes; on the integer dtypes
/// and Bool every op ir::infer accepts there (all but Var).
bool has_reduce_kernel(ir::ReduceOp op, DType dtype);

/// The reduction kernels of op (x of dtype, has_reduce_kernel; out of the op's result dtype,
/// index_dtype for ArgMax and ArgMin), as ndarray's: floats accumulate in double; integer sums,
/// products and means wrap (in an unsigned accumulator of at least 32 bits, truncated to the
/// dtype; a mean is that sum divided by n, truncating); extremes keep the first index of a tie
/// (and of a NaN). x is [rows, n, inner], contiguous; out is [rows, inner].
///   ember_reduce_rows(const T* x, Out* out, State* partial, long long rows, long long n,
///                     long long chunks, long long chunk, long long correction)
///     inner == 1: block b reduces elements [c * chunk, (c + 1) * chunk) of row b / chunks
///     (c = b % chunks); with one chunk it writes out[row], else partial[b].
///   ember_reduce_warp_rows(const T* x, Out* out, long long rows, long long n,
///                          long long correction)
///     inner == 1, short rows: warp w of block b reduces row b * (blockDim.x / 32) + w.
///   ember_reduce_partials(const State* partial, Out* out, long long rows, long long chunks,
///                         long long n, long long correction)
///     block r combines partial[r * chunks ...] into out[r].
///   ember_reduce_columns(const T* x, Out* out, State* partial, long long rows, long long n,
///                        long long inner, long long chunks, long long chunk,
///                        long long correction)
///     inner > 1: thread (r, c, j) reduces x[r, c * chunk ... (c + 1) * chunk, j]; with one
///     chunk it writes out[r, j], else partial[(r * chunks + c) * inner + j].
///   ember_reduce_column_partials(const State* partial, Out* out, long long rows,
///                                long long inner, long long chunks, long long n,
///                                long long correction)
///     thread (r, j) combines its chunks into out[r, j].
/// reduce_state_size is the bytes of one State of op on dtype (for the partials' buffer).
std::string reduce_source(const ir::Reduce& op, DType dtype, DType out_dtype);
std::size_t reduce_state_size(const ir::Reduce& op, DType dtype);

/// Softmax (log softmax) of a float x [rows, n, inner], contiguous, along n:
///   ember_softmax_rows(const T* x, T* out, long long rows, long long n)  (inner == 1, longer
///     rows: a block a row)
///   ember_softmax_warp_rows(const T* x, T* out, long long rows, long long n)  (inner == 1,
///     n <= 32 * per_lane: a warp a row, blocks of kRowThreads threads)
///   ember_softmax_columns(const T* x, T* out, long long rows, long long n, long long inner)
/// per_lane (a power of two up to 32) sizes the warp kernel's registers; vector (a power of two
/// dividing per_lane and n) is how many consecutive elements a lane loads and stores at once.
std::string softmax_source(const ir::Softmax& op, DType dtype, int per_lane = 1, int vector = 1);

/// Whether random_source draws dtype on the GPU: f32, f16 and bf16, whose draws are computed in
/// f32 by correctly rounded operations only (ir/random.h), so they equal every other device's
/// bit for bit. f64 and the integer dtypes use libm's log and cos, which differ between
/// libraries: they are drawn on the host.
bool draws_on_gpu(DType dtype);

/// ember_random(T* out, long long n, unsigned long long key, float scale, float shift,
///              unsigned int threshold)
/// element i = ir::random_element<float>(d, key, i) (docs/random.md) of distribution's kind,
/// stored as dtype (draws_on_gpu): scale and shift are ir::affine_draw<float>(d)'s (the uniform
/// and the normal), threshold is ir::bernoulli_threshold_f32(d.a) (Bernoulli). The normal is
/// random_formulas-inl.h's formula, written out by the CUDA C target (codegen/cuda_c.h).
std::string random_source(Distribution::Kind kind, DType dtype);

/// The C type of an integer dtype's element ("long long", "unsigned char", ...).
std::string integer_type(DType dtype);

/// ember_check_indices(const I* indices, long long n, long long size,
///                     unsigned long long* first_bad)
/// for indices of index_dtype (any integer dtype): atomicMin of the position of every index
/// outside [0, size) into *first_bad (which starts at ~0ull).
std::string check_indices_source(DType index_dtype);

/// The indexed kernels over elements of element_size bytes (gather) or of dtype (scatter-add),
/// indices of index_dtype. Coordinates c of the walked tensor (out for gather, values for
/// scatter) of rank <= 8; the other tensor's offset is sum_d (d == dim ? index : c_d) * strides[d],
/// where index is idx[i] (select == 0: indices shaped as the walked tensor) or idx[c_dim]
/// (select == 1: a rank-1 list along dim).
///   ember_gather(const E* x, const I* idx, E* out, long long n, int rank, ember_dims sizes,
///                ember_dims x_strides, int dim, int select)
///   ember_scatter_add(const T* values, const I* idx, T* out, long long n, int rank,
///                     ember_dims sizes, ember_dims out_strides, int dim, int select)
std::string gather_source(std::size_t element_size, DType index_dtype);
std::string scatter_add_source(DType dtype, DType index_dtype);
/// Whether scatter_add_source takes dtype: every dtype but Bool (f32, f64 and the 4- and 8-byte
/// integers through atomicAdd, the 1- and 2-byte dtypes through a compare-and-swap of the word that
/// holds the element; f16 and bf16 round each add, as PyTorch's index_add_ does on a GPU).
bool adds_atomically(DType dtype);

/// Scatter and SelectAssign that assign, over elements of element_size bytes (every dtype) and
/// indices of index_dtype, as ndarray's: of several values naming one element, the last in
/// row-major order of values wins. Deterministic in two passes over the walk of
/// scatter_add_source (same parameters):
///   ember_scatter_claim(const I* idx, W* winner, long long n, int rank, ember_dims sizes,
///                       ember_dims out_strides, int dim, int select)
///     select == 0: for each of the n values, atomicMax(winner + its offset in out, i + 1)
///     (winner: one W per element of out); select == 1: for each of the n indices,
///     atomicMax(winner + idx[k], k + 1) (winner: one W per position along dim).
///   ember_scatter_assign(const E* values, const I* idx, E* out, const W* winner, long long n,
///                        int rank, ember_dims sizes, ember_dims out_strides, int dim, int select)
///     each value whose claim won is written to out.
/// winner starts at 0; W is unsigned long long with wide_positions (n >= 2^32 - 1), else
/// unsigned int.
std::string scatter_assign_source(std::size_t element_size, DType index_dtype, bool wide_positions);

/// The geometry of a convolution's column matrix, every spatial dim padded to three (a missing dim
/// has size 1, stride 1, no padding): the kernel parameter struct ember_conv, by value.
struct ConvColumns {
  int64_t in[3];   ///< the image's spatial sizes (the forward convolution's input)
  int64_t out[3];  ///< the columns' positions (the forward convolution's output)
  int64_t kernel[3];
  int64_t stride[3];
  int64_t pad[3];
  int64_t dilation[3];
};

/// Column matrices of a float dtype's images [N, C, *in], each column row (c, k) over the positions
/// of every sample: cols [C * K, N * L] (K = prod(kernel), L = prod(out)), row-major.
///   ember_im2col(const T* x, T* cols, long long N, long long C, ember_conv g)
///     cols[(c K + k) N L + n L + o] = x[n, c, o * stride - pad + k * dilation] (0 outside)
///   ember_col2im(const T* cols, T* x, long long N, long long C, ember_conv g)
///     x[n, c, i] = the sum of the columns' entries that im2col would read from x[n, c, i]
std::string columns_source(DType dtype);

/// Pooling of a float dtype over windows computed on the host (ndarray's pool_windows: every
/// geometry rule in one place), uploaded as one table of {first, count, padded_count} per output
/// index of each of the three (front-padded) spatial axes:
///   struct ember_pool { long long in[3], step[3], outs[3]; const long long* windows[3];
///                       double divisor; int count_padding; int has_divisor; }
///   ember_max_pool(const T* x, T* out, I* indices, long long planes, ember_pool p)
///     the window's maximum as ndarray picks it (a NaN replaces anything, a larger value the
///     best so far) and its position in the plane;
///   ember_avg_pool(const T* x, T* out, long long planes, ember_pool p)
///     the window's sum in double over the divisor (has_divisor: divisor; else the product of
///     the counts, or of the padded counts with count_padding).
std::string pool_source(DType dtype, DType index_dtype);

/// Rows up to this long are reduced a warp a row.
inline constexpr int64_t kWarpReduceElements = 2048;

/// Threads of a block of the row kernels (reduce_rows, reduce_partials, softmax_rows).
inline constexpr unsigned kRowThreads = 256;

}  // namespace ember::cuda
