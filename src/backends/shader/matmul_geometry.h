// The geometry of the shader backends' matmul (vulkan's and wgpu's matmul_kernel), written once:
// which products the kernels take, the batch entries' offsets (a side's batch dim of size 1
// against the other's n read with a stride of 0), the tiles, the parameter words and the
// workgroup grid, k's split where the tiles are too few. Only the kernels' sources differ between
// the backends. Every kernel reads the same words: m, n, k, then for each of kMatmulBatchRank
// batch dims (outermost first) its size and the lhs and rhs strides of one step along it, in
// elements, then k's splits and the chunk of each.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "ir/ops.h"

namespace ember::shader {

/// The rows and columns of the output tile one workgroup computes.
constexpr uint64_t kMatmulTile = 64;
/// The rows and columns of the block one invocation holds in registers (4 x 4).
constexpr uint64_t kMatmulBlock = 4;
/// The k elements staged through shared memory at a time.
constexpr uint64_t kMatmulStep = 16;
/// The invocations of a workgroup: (64 / 4)^2.
constexpr uint64_t kMatmulWorkgroup = (kMatmulTile / kMatmulBlock) * (kMatmulTile / kMatmulBlock);
/// The batch dims (after merging) the kernels index; more go to the host.
constexpr std::size_t kMatmulBatchRank = 4;
/// One batch dim: its size and the strides of one step along it in each operand (0 where that
/// side's dim is 1, broadcast).
struct MatmulBatchDim {
  uint32_t size = 1;
  uint32_t lhs_stride = 0;
  uint32_t rhs_stride = 0;
};

/// The k elements of a split's chunk at least (split_k): shorter chunks would spend more on the
/// partial sums than their workgroups gain.
constexpr uint64_t kMatmulMinChunk = 256;
/// The most chunks k is split into.
constexpr uint64_t kMatmulMaxSplits = 8;

/// A product the kernels take: [batch..., m, k] x [batch..., k, n] -> [batch..., m, n]. Where its
/// tiles are too few workgroups to fill the device, k is split into chunks (split_k): workgroup z
/// computes batch entry z / splits over k's chunk z % splits into a partial result (at z's own
/// m x n plane of a scratch buffer), and a second kernel adds each element's partials in order.
struct MatmulGeometry {
  uint64_t batch = 1;  ///< the result's batch entries
  uint64_t m = 0;
  uint64_t n = 0;
  uint64_t k = 0;
  std::array<MatmulBatchDim, kMatmulBatchRank> dims{};  ///< outermost first, padded with size 1
  uint64_t splits = 1;                                  ///< k's chunks
  uint64_t chunk = 0;  ///< the k elements of a chunk (the last one's may be fewer)

  /// The parameter block's words: the header's order, then splits and chunk (words 15 and 16).
  std::vector<uint32_t> words() const {
    std::vector<uint32_t> w = {static_cast<uint32_t>(m), static_cast<uint32_t>(n),
                               static_cast<uint32_t>(k)};
    for (const MatmulBatchDim& dim : dims)
      w.insert(w.end(), {dim.size, dim.lhs_stride, dim.rhs_stride});
    w.insert(w.end(), {static_cast<uint32_t>(splits), static_cast<uint32_t>(chunk)});
    return w;
  }
  /// The workgroups along x (columns), y (rows) and z (batch entries times splits) for tiles of
  /// tile x tile.
  std::array<uint32_t, 3> groups(uint64_t tile = kMatmulTile) const {
    return {static_cast<uint32_t>((n + tile - 1) / tile),
            static_cast<uint32_t>((m + tile - 1) / tile), static_cast<uint32_t>(batch * splits)};
  }
  /// Whether the result is empty (nothing to record) or k is (the result is zeros).
  bool empty() const { return batch * m * n == 0; }
  /// The elements of the partial results (splits > 1).
  uint64_t partial_elements() const { return splits * batch * m * n; }
  /// The workgroups of the sum of the partials, an invocation an element (at most max_groups: the
  /// kernels loop over the rest).
  uint32_t sum_groups(uint64_t max_groups) const {
    return static_cast<uint32_t>(
        std::min<uint64_t>((batch * m * n + kMatmulWorkgroup - 1) / kMatmulWorkgroup, max_groups));
  }
  /// The words of the sum of the partials: the result's elements, splits, an m x n plane.
  std::vector<uint32_t> sum_words() const {
    return {static_cast<uint32_t>(batch * m * n), static_cast<uint32_t>(splits),
            static_cast<uint32_t>(m * n)};
  }
};

/// Splits g's k where its tiles of tile x tile are fewer than target_groups workgroups: into as
/// many chunks as bring them there, at most kMatmulMaxSplits, of at least kMatmulMinChunk
/// elements (a multiple of kMatmulStep) each. No split where target_groups is 0.
inline void split_k(MatmulGeometry& g, uint64_t target_groups, uint64_t tile) {
  g.splits = 1;
  g.chunk = g.k;
  const std::array<uint32_t, 3> tiles = g.groups(tile);
  const uint64_t groups = uint64_t{tiles[0]} * tiles[1] * tiles[2];
  if (groups == 0 || groups >= target_groups) return;
  const uint64_t wanted = (target_groups + groups - 1) / groups;
  const uint64_t splits = std::min({wanted, kMatmulMaxSplits, g.k / kMatmulMinChunk});
  if (splits < 2) return;
  const uint64_t per_split = (g.k + splits - 1) / splits;
  g.chunk = (per_split + kMatmulStep - 1) / kMatmulStep * kMatmulStep;
  g.splits = (g.k + g.chunk - 1) / g.chunk;
}

/// A product's operand as its kernel reads it: its range, and whether that holds the operand's
/// transpose (a [..., k, m] tensor for lhs, [..., n, k] for rhs: a transpose not yet written,
/// ShaderBackend's deferred one, read as it is).
template <typename Range>
struct ProductOperand {
  Range range;
  bool transposed = false;
};

namespace detail {

/// The batch dims of lhs, rhs (the result's rank) and out, the ones of size 1 dropped and
/// neighbours merged where both sides step alike; nullopt for more than kMatmulBatchRank.
inline std::optional<std::vector<MatmulBatchDim>> merged_batch_dims(const ir::TensorMeta& lhs,
                                                                    const ir::TensorMeta& rhs,
                                                                    const ir::TensorMeta& out) {
  const std::size_t batch_rank = out.shape.rank() - 2;
  const std::size_t rank = out.shape.rank();
  uint64_t lhs_step = static_cast<uint64_t>(lhs.shape[rank - 2] * lhs.shape[rank - 1]);
  uint64_t rhs_step = static_cast<uint64_t>(rhs.shape[rank - 2] * rhs.shape[rank - 1]);
  std::vector<MatmulBatchDim> inner_first;
  for (std::size_t d = batch_rank; d-- > 0;) {
    const auto size = static_cast<uint64_t>(out.shape[d]);
    const bool lhs_has = lhs.shape[d] != 1;
    const bool rhs_has = rhs.shape[d] != 1;
    if (size != 1) {
      const MatmulBatchDim dim{static_cast<uint32_t>(size),
                               static_cast<uint32_t>(lhs_has ? lhs_step : 0),
                               static_cast<uint32_t>(rhs_has ? rhs_step : 0)};
      MatmulBatchDim* last = inner_first.empty() ? nullptr : &inner_first.back();
      // dim continues the one inside it when a step along it is that one's whole extent.
      if (last != nullptr && dim.lhs_stride == last->lhs_stride * last->size &&
          dim.rhs_stride == last->rhs_stride * last->size)
        last->size *= dim.size;
      else
        inner_first.push_back(dim);
    }
    if (lhs_has) lhs_step *= static_cast<uint64_t>(lhs.shape[d]);
    if (rhs_has) rhs_step *= static_cast<uint64_t>(rhs.shape[d]);
  }
  if (inner_first.size() > kMatmulBatchRank) return std::nullopt;
  return std::vector<MatmulBatchDim>(inner_first.rbegin(), inner_first.rend());
}

}  // namespace detail

/// The geometry of lhs @ rhs -> out (ir::infer's operands and result of a Matmul) where the
/// kernels take it, else nullopt (the host runs it): every tensor at most max_binding bytes of
/// element_bytes each and fewer than 2^31 elements (the kernels count in 32 bits), k at most
/// k at most max_turns (the device's loop turns: the kernels' loops take some k + k / 16 + 8
/// turns, which lavapipe's 65535 still covers at its bound, and a 32-bit count at a GPU's), at
/// most kMatmulBatchRank batch dims after merging, at most max_groups workgroups
/// along each axis for tiles of tile x tile. k split where the tiles are fewer than
/// target_groups (split_k; 0: never), the partials within max_binding too. The dtype is the
/// backend's to check.
inline std::optional<MatmulGeometry> matmul_geometry(
    const ir::TensorMeta& lhs, const ir::TensorMeta& rhs, const ir::TensorMeta& out,
    uint64_t element_bytes, uint64_t max_binding, uint64_t max_groups, uint64_t max_turns,
    uint64_t tile = kMatmulTile, uint64_t target_groups = 0) {
  const std::size_t rank = out.shape.rank();
  if (rank < 2 || lhs.shape.rank() != rank || rhs.shape.rank() != rank) return std::nullopt;
  for (const ir::TensorMeta* meta : {&lhs, &rhs, &out}) {
    const auto elements = static_cast<uint64_t>(meta->shape.num_elements());
    if (elements >= (uint64_t{1} << 31) || elements * element_bytes > max_binding)
      return std::nullopt;
  }
  MatmulGeometry g;
  g.m = static_cast<uint64_t>(out.shape[rank - 2]);
  g.n = static_cast<uint64_t>(out.shape[rank - 1]);
  g.k = static_cast<uint64_t>(lhs.shape[rank - 1]);
  for (std::size_t d = 0; d + 2 < rank; ++d)
    g.batch *= static_cast<uint64_t>(out.shape[d]);
  const std::optional<std::vector<MatmulBatchDim>> dims = detail::merged_batch_dims(lhs, rhs, out);
  if (!dims || g.k > max_turns) return std::nullopt;
  std::copy(dims->begin(), dims->end(), g.dims.end() - static_cast<std::ptrdiff_t>(dims->size()));
  split_k(g, target_groups, tile);
  const uint64_t partials = g.partial_elements();
  if (g.splits > 1 && (partials >= (uint64_t{1} << 31) || partials * element_bytes > max_binding))
    split_k(g, 0, tile);
  for (const uint32_t groups : g.groups(tile))
    if (groups > max_groups) return std::nullopt;
  return g;
}

/// Records lhs @ rhs into out with geometry g: nothing for an empty result, fill_zero(out) for an
/// empty k (the sum of no products), else dispatch(words, groups), the product into out, or into
/// partials where k is split, then sum_partials() (the partials' sum into out).
template <typename FillZero, typename Dispatch, typename SumPartials>
void record_matmul(const MatmulGeometry& g, const FillZero& fill_zero, const Dispatch& dispatch,
                   const SumPartials& sum_partials, uint64_t tile = kMatmulTile) {
  if (g.empty()) return;
  if (g.k == 0) {
    fill_zero();
    return;
  }
  dispatch(g.words(), g.groups(tile));
  if (g.splits > 1) sum_partials();
}

}  // namespace ember::shader
