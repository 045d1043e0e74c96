// The CUDA C sources of the fused attention (ir::Attention) and its gradient (ir::AttentionGrad),
// flash-style: no [L, S] matrix is ever stored. Scores, the online softmax (running maximum and
// sum) and every sum are f32 in every kernel.
// - f16 and bf16 with E and Ev multiples of 16 (up to 64 for the backward) run on tensor cores
//   (uses_tensor_cores): mma.sync m16n8k16 with f32 accumulation, a warp per 16 rows; the other
//   side's tiles arrive by cp.async, double-buffered, and reach the products through ldmatrix
//   (compute capability 8.0 and later).
// - The other forwards with head dims up to 64 (f32 above all) run register tiles: a thread
//   computes 4 rows by 2 keys of scores and 4 rows of the output with f32 fused multiply-adds.
// - The rest is scalar: a block takes 32 query rows (forward, dQ) or 32 keys (dK, dV) of one
//   batch entry; 8 threads share a row, each holding every 8th element of its q, k, v or gradient
//   slices in registers, and the other side's tiles of 32 rows pass through shared memory in f32.
// The backward recomputes the probabilities from the forward's log-sum-exp, in two passes: dQ a
// query block at a time (which also writes D = rowsum(dO out)), then dK and dV a key block at a
// time; no atomics, so the gradients are the same on every run.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "ember/dtype.h"
#include "ir/ops.h"

namespace ember::cuda {

/// Threads of a block of the scalar attention kernels, and the rows a block takes (and a tile
/// holds).
inline constexpr unsigned kAttentionThreads = 256;
inline constexpr int64_t kAttentionRows = 32;
/// A kernel's block: its threads and the rows (queries or keys) it takes.
struct AttentionGrid {
  unsigned threads;
  int64_t rows;
};

/// The largest head dim (E and Ev) the kernels hold in registers.
inline constexpr int64_t kAttentionMaxHeadDim = 128;

enum class AttentionMask : uint8_t { None, Bool, Float };

/// The kernel parameter ember_attention, by value. Batch entry b (the batch dims flattened) reads
/// its mask from (b / mask_inner) * mask_outer_stride + (b % mask_inner) * mask_inner_stride, then
/// i * mask_row_stride + j * mask_col_stride for query i and key j (element strides; 0 along a
/// broadcast dim).
struct AttentionParameters {
  long long l = 0;  ///< queries
  long long s = 0;  ///< keys
  long long mask_inner = 1;
  long long mask_outer_stride = 0;
  long long mask_inner_stride = 0;
  long long mask_row_stride = 0;
  long long mask_col_stride = 0;
  double scale = 1.0;
};

/// What the kernels are compiled for and launched over.
struct AttentionShape {
  DType dtype;
  int64_t batches;  ///< the batch dims' product
  int64_t e;        ///< q's and k's head dim
  int64_t ev;       ///< v's
  AttentionMask mask;
  bool causal;
  AttentionParameters parameters;
};

/// The shape of op on inputs (q, k, v[, mask], as ir::infer accepts them), or nullopt where the
/// kernels do not take it: a dtype other than f32, f16 and bf16, a head dim of 0 or past
/// kAttentionMaxHeadDim, no query or no key, or a mask whose batch dims need more than the two
/// strides above.
std::optional<AttentionShape> attention_shape(const ir::Attention& op,
                                              std::span<const ir::TensorMeta> inputs);

/// Whether the forward runs on tensor cores (mma.sync): f16 and bf16 with E and Ev multiples of
/// 16. Elsewhere it is the scalar kernel.
bool uses_tensor_cores(const AttentionShape& shape);
/// Whether the backward does: the same, with E and Ev up to 64.
bool backward_uses_tensor_cores(const AttentionShape& shape);
/// ember_attention_forward(const x_t* q, const x_t* k, const x_t* v, const void* mask,
///                         x_t* out, float* lse, ember_attention p)
/// grid: batches * ceil(L / attention_forward_grid's rows) blocks of its threads. out =
/// softmax(s) v, lse = the rows' log-sum-exp (-inf, and out NaN, for a row with no key to attend).
std::string attention_forward_source(const AttentionShape& shape);
AttentionGrid attention_forward_grid(const AttentionShape& shape);

/// ember_attention_dq(const x_t* q, const x_t* k, const x_t* v, const void* mask,
///                    const x_t* out, const float* lse, const x_t* grad, x_t* dq, float* delta,
///                    ember_attention p)
///   grid: batches * ceil(L / attention_backward_grid's rows) blocks of its threads; writes dq
///   and delta = rowsum(grad * out) (f32, [batches, L]).
/// ember_attention_dkdv(const x_t* q, const x_t* k, const x_t* v, const void* mask,
///                      const float* lse, const x_t* grad, const float* delta, x_t* dk, x_t* dv,
///                      ember_attention p)
///   grid: batches * ceil(S / attention_backward_grid's rows) blocks of its threads; runs after
///   ember_attention_dq (it reads delta).
std::string attention_backward_source(const AttentionShape& shape);
AttentionGrid attention_backward_grid(const AttentionShape& shape);

}  // namespace ember::cuda
