// The fused attention of the shader backends (vulkan's and wgpu's attention_source), written once:
// which cases the kernels take, their constants, parameter words, workgroups and the order of
// their passes. Flash-attention style, one invocation a row: a workgroup of kAttentionRows queries
// streams the keys and values in tiles of kAttentionTile rows through shared memory, keeping each
// row's running maximum and sum (the online softmax), and writes the result and the row's
// log-sum-exp once. The backward first packs each query row's lse and D = rowsum(grad_out * out)
// as one pair (the stats pass), then recomputes the probabilities P = exp(s - lse): dQ by a
// workgroup of queries streaming key tiles, dK and dV by a workgroup of keys streaming query
// tiles. Only the kernels' sources differ between the backends; both read the same words:
//   0 L, 1 S, 2 scale (f32 bits), 3 mask row stride, 4 mask column stride, 5 batch entries,
//   6 batch rank, then (size, mask stride) of each batch dim, outermost first (the mask's element
//   of batch entry b, query i and key j: the sum of b's coordinates times their strides, plus i
//   and j times theirs; a broadcast dim has stride 0).
// f32 only (q, k, v and a float mask; a Bool mask as bytes); the rest runs as the composite.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "backends/shader/device_limits.h"
#include "ir/ops.h"

namespace ember::shader {

/// The invocations of a workgroup: one row (query, or key) each.
constexpr uint32_t kAttentionRows = 64;
/// The rows of a tile of keys (or queries) in shared memory.
constexpr uint32_t kAttentionTile = 16;
/// The largest head dim (E and Ev): an invocation holds rows of it in private arrays.
constexpr int64_t kAttentionMaxHeadDim = 128;
/// The most batch dims the parameter words describe.
constexpr std::size_t kAttentionMaxBatchRank = 8;
/// The most tensors one attention kernel binds (dK and dV's: q, k, v, mask, stats, grad_out, dk,
/// dv), after the parameter block.
constexpr uint32_t kAttentionMostTensors = 8;

/// The kernels of the passes: each language's source of each.
enum class AttentionPass : uint8_t { Forward, Stats, GradQ, GradKV };

/// How the mask reads: none, Bool bytes (attend where nonzero), f32 added to the scores.
enum class AttentionMaskKind : uint32_t { None = 0, Bool = 1, Float = 2 };

/// An Attention's sizes on its inputs (q, k, v[, mask]), as the kernels see them.
struct AttentionGeometry {
  uint64_t batches = 1;
  uint64_t l = 0;
  uint64_t s = 0;
  uint64_t e = 0;
  uint64_t ev = 0;
  float scale = 1;
  bool causal = false;
  AttentionMaskKind mask = AttentionMaskKind::None;
  std::vector<uint64_t> batch_sizes;         ///< q's batch dims
  std::vector<uint64_t> mask_batch_strides;  ///< the mask's element strides along them
  uint64_t mask_row_stride = 0;
  uint64_t mask_col_stride = 0;

  static AttentionGeometry of(const ir::Attention& op, std::span<const ir::TensorMeta> inputs) {
    const Shape& q = inputs[0].shape;
    const std::size_t rank = q.rank();
    AttentionGeometry g;
    g.l = static_cast<uint64_t>(q[rank - 2]);
    g.s = static_cast<uint64_t>(inputs[1].shape[rank - 2]);
    g.e = static_cast<uint64_t>(q[rank - 1]);
    g.ev = static_cast<uint64_t>(inputs[2].shape[rank - 1]);
    g.scale = static_cast<float>(op.scale);
    g.causal = op.causal;
    for (std::size_t d = 0; d + 2 < rank; ++d) {
      g.batch_sizes.push_back(static_cast<uint64_t>(q[d]));
      g.batches *= static_cast<uint64_t>(q[d]);
    }
    g.mask_batch_strides.assign(rank - 2, 0);
    if (inputs.size() == 4) g.read_mask(inputs[3], rank);
    return g;
  }

  /// The workgroups of a pass over rows rows of each batch entry.
  uint64_t groups_over(uint64_t rows) const {
    return batches * ((rows + kAttentionRows - 1) / kAttentionRows);
  }
  /// The workgroups of pass.
  uint64_t groups(AttentionPass pass) const {
    switch (pass) {
      case AttentionPass::Forward:
      case AttentionPass::GradQ:
        return groups_over(l);
      case AttentionPass::Stats:
        return (batches * l + kAttentionRows - 1) / kAttentionRows;
      case AttentionPass::GradKV:
        return groups_over(s);
    }
    return 0;
  }
  /// The loop turns of an invocation of pass (at most): its own rows' loads and stores, then per
  /// tile streamed its share of the tile's loads, a rescale of its rows, and its work on each row
  /// of the tile.
  uint64_t turns(AttentionPass pass) const {
    const uint64_t own = 4 * (e + ev);
    const uint64_t load = (kAttentionTile * (e + ev) + kAttentionRows - 1) / kAttentionRows + 2;
    const auto streamed = [&](uint64_t rows, uint64_t work) {
      const uint64_t tiles = (rows + kAttentionTile - 1) / kAttentionTile;
      return own + tiles * (1 + load + e + ev + kAttentionTile * (2 + work));
    };
    switch (pass) {
      case AttentionPass::Forward:
        return streamed(s, e + ev);
      case AttentionPass::Stats:
        return own;
      case AttentionPass::GradQ:
        return streamed(s, 2 * e + ev);
      case AttentionPass::GradKV:
        return streamed(l, 2 * (e + ev));
    }
    return 0;
  }
  /// The shared memory of a workgroup: a tile of rows of E and one of Ev.
  uint64_t shared_bytes() const { return kAttentionTile * (e + ev) * sizeof(float); }

  /// The constants the kernels' sources are specialised on (each language writes them its way).
  std::vector<std::pair<std::string, uint64_t>> constants() const {
    return {{"E_", e},
            {"EV_", ev},
            {"MASK_KIND", static_cast<uint64_t>(mask)},
            {"CAUSAL", causal ? 1 : 0},
            {"ROWS", kAttentionRows},
            {"TILE", kAttentionTile}};
  }

  /// The parameter words (the header's layout).
  std::vector<uint32_t> words() const {
    std::vector<uint32_t> w = {static_cast<uint32_t>(l),
                               static_cast<uint32_t>(s),
                               std::bit_cast<uint32_t>(scale),
                               static_cast<uint32_t>(mask_row_stride),
                               static_cast<uint32_t>(mask_col_stride),
                               static_cast<uint32_t>(batches),
                               static_cast<uint32_t>(batch_sizes.size())};
    for (std::size_t d = 0; d < batch_sizes.size(); ++d) {
      w.push_back(static_cast<uint32_t>(batch_sizes[d]));
      w.push_back(static_cast<uint32_t>(mask_batch_strides[d]));
    }
    return w;
  }

 private:
  /// The mask's kind and strides: its dims right-aligned to the scores [..., L, S] (rank dims),
  /// stride 0 where it broadcasts.
  void read_mask(const ir::TensorMeta& m, std::size_t rank) {
    mask = m.dtype == DType::Bool ? AttentionMaskKind::Bool : AttentionMaskKind::Float;
    std::vector<uint64_t> strides(rank, 0);
    uint64_t stride = 1;
    const std::vector<int64_t>& dims = m.shape.dims();
    for (std::size_t d = dims.size(); d-- > 0;) {
      if (dims[d] != 1) strides[rank - dims.size() + d] = stride;
      stride *= static_cast<uint64_t>(dims[d]);
    }
    std::copy(strides.begin(), strides.end() - 2, mask_batch_strides.begin());
    mask_row_stride = strides[rank - 2];
    mask_col_stride = strides[rank - 1];
  }
};

/// Whether the attention kernels take op on inputs (q, k, v[, mask], as ir::infer accepts them)
/// in both directions on a device of limits: f32 (the mask Bool or f32), head dims 1 to
/// kAttentionMaxHeadDim, at most kAttentionMaxBatchRank batch dims, at least one query and key,
/// every tensor (and the backward's stats) within one binding and below 2^31 elements, the
/// workgroups, shared memory and bindings the device allows, and every pass's loops within the
/// device's loop turns.
inline bool attention_passes_take(const ir::Attention& op, std::span<const ir::TensorMeta> inputs,
                                  const DeviceLimits& limits) {
  if (inputs.size() < 3 || inputs[0].dtype != DType::F32) return false;
  if (inputs.size() == 4 && inputs[3].dtype != DType::Bool && inputs[3].dtype != DType::F32)
    return false;
  if (inputs[0].shape.rank() < 2 || inputs[0].shape.rank() - 2 > kAttentionMaxBatchRank)
    return false;
  const AttentionGeometry g = AttentionGeometry::of(op, inputs);
  const auto head_fits = [](uint64_t dim) { return dim >= 1 && dim <= kAttentionMaxHeadDim; };
  if (!head_fits(g.e) || !head_fits(g.ev) || g.batches == 0 || g.l == 0 || g.s == 0) return false;
  constexpr uint64_t kMaxElements = uint64_t{1} << 31;
  const uint64_t stats = 2 * g.batches * g.l;
  if (stats >= kMaxElements || stats * sizeof(float) > limits.max_binding) return false;
  for (const ir::TensorMeta& t : inputs) {
    const auto n = static_cast<uint64_t>(t.shape.num_elements());
    if (n >= kMaxElements || n * dtype_size(t.dtype) > limits.max_binding) return false;
  }
  if (g.batches * g.l * g.ev >= kMaxElements ||
      g.batches * g.l * g.ev * sizeof(float) > limits.max_binding)
    return false;
  if (g.shared_bytes() > limits.max_shared_bytes || !binds_within(kAttentionMostTensors, limits))
    return false;
  for (const AttentionPass pass :
       {AttentionPass::Forward, AttentionPass::Stats, AttentionPass::GradQ, AttentionPass::GradKV})
    if (g.groups(pass) > limits.max_groups || g.turns(pass) > limits.max_loop_turns) return false;
  return true;
}

/// Records the forward on q, k, v and mask (the mask's range: any tensor's where there is none)
/// into out and lse. dispatch(pass, tensors, groups) records one kernel of the geometry's
/// constants and words.
template <typename Range, typename Dispatch>
void record_attention_forward(const AttentionGeometry& g, const Range& q, const Range& k,
                              const Range& v, const Range& mask, const Range& out, const Range& lse,
                              const Dispatch& dispatch) {
  const std::array<Range, 6> tensors = {q, k, v, mask, out, lse};
  dispatch(AttentionPass::Forward, std::span<const Range>(tensors),
           static_cast<uint32_t>(g.groups(AttentionPass::Forward)));
}

/// The forward's tensors and the gradient of out, as the backward reads them.
template <typename Range>
struct AttentionBackwardInputs {
  Range q, k, v, mask, out, lse, grad_out;
};

/// Records the backward into dq, dk and dv: the stats pass into stats (2 f32 a query row), then
/// dQ, then dK and dV. dispatch as for record_attention_forward.
template <typename Range, typename Dispatch>
void record_attention_backward(const AttentionGeometry& g, const AttentionBackwardInputs<Range>& in,
                               const Range& stats, const Range& dq, const Range& dk,
                               const Range& dv, const Dispatch& dispatch) {
  const auto groups = [&](AttentionPass pass) { return static_cast<uint32_t>(g.groups(pass)); };
  const std::array<Range, 4> stats_tensors = {in.out, in.grad_out, in.lse, stats};
  dispatch(AttentionPass::Stats, std::span<const Range>(stats_tensors),
           groups(AttentionPass::Stats));
  const std::array<Range, 7> q_tensors = {in.q, in.k, in.v, in.mask, stats, in.grad_out, dq};
  dispatch(AttentionPass::GradQ, std::span<const Range>(q_tensors), groups(AttentionPass::GradQ));
  const std::array<Range, 8> kv_tensors = {in.q, in.k, in.v, in.mask, stats, in.grad_out, dk, dv};
  dispatch(AttentionPass::GradKV, std::span<const Range>(kv_tensors),
           groups(AttentionPass::GradKV));
}

}  // namespace ember::shader
