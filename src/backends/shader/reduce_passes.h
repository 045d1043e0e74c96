// The two passes of the shader backends' sum and mean (vulkan's and wgpu's reduce_kernel), written
// once: x seen as [rows, n, inner] around the reduced dim, each lane cut into chunks of 4096
// elements; the first pass adds each chunk in order (one invocation a chunk) into a scratch
// buffer of 8 bytes a chunk, the second adds each lane's chunks in order into the output. Only
// the kernels' sources differ between the backends. Both kernels read the same parameter words:
// outputs, n, inner, chunks.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ir/ops.h"

namespace ember::shader {

/// The invocations of a workgroup in both passes' kernels.
constexpr uint64_t kReduceWorkgroup = 256;
/// The elements of a lane one invocation adds in the first pass. Note: lavapipe (llvmpipe) ends
/// an invocation's loops after 65535 turns in all, silently, so no invocation may loop longer.
constexpr uint64_t kReduceChunk = 4096;
/// The most chunks of a lane the second pass adds (lavapipe's loop limit again).
constexpr uint64_t kMaxReduceChunks = 16384;
/// The bytes of a chunk's partial result (a double, or an f32 sum and its error).
constexpr uint64_t kPartialBytes = 8;

/// x as [rows, n, inner] around the reduced dim (the whole tensor, one lane, when there is none).
struct ReduceLanes {
  uint64_t rows = 1;
  uint64_t n = 1;
  uint64_t inner = 1;

  static ReduceLanes of(const ir::Reduce& reduce, const Shape& shape) {
    if (!reduce.dim) return {1, static_cast<uint64_t>(shape.num_elements()), 1};
    return along(shape, *reduce.dim);
  }
  /// shape's lanes along dim (non-negative, < rank).
  static ReduceLanes along(const Shape& shape, int64_t dim) {
    ReduceLanes lanes;
    for (std::size_t d = 0; d < shape.rank(); ++d) {
      const auto i = static_cast<int64_t>(d);
      (i < dim ? lanes.rows : i == dim ? lanes.n : lanes.inner) *= static_cast<uint64_t>(shape[d]);
    }
    return lanes;
  }

  uint64_t outputs() const { return rows * inner; }
  /// The chunks of a lane; one for an empty lane (its sum, 0, is written by the passes).
  uint64_t chunks() const { return std::max<uint64_t>(1, (n + kReduceChunk - 1) / kReduceChunk); }
  uint64_t partials() const { return outputs() * chunks(); }
};

/// Whether the two passes take reduce of x on a device whose kernels bind at most max_binding
/// bytes: Sum or Mean (of a lane that is not empty: ndarray's mean of none is NaN by its
/// division, left to it), x and the partial results within one binding, fewer than 2^31
/// elements (the kernels count in 32 bits) and fewer than max_partials chunks in all. The dtype
/// is the backend's to check.
inline bool reduce_passes_take(const ir::Reduce& reduce, const ir::TensorMeta& x,
                               uint64_t max_binding, uint64_t max_partials) {
  if (reduce.op != ir::ReduceOp::Sum && reduce.op != ir::ReduceOp::Mean) return false;
  const ReduceLanes lanes = ReduceLanes::of(reduce, x.shape);
  if (reduce.op == ir::ReduceOp::Mean && lanes.n == 0) return false;
  const auto elements = static_cast<uint64_t>(x.shape.num_elements());
  return elements * dtype_size(x.dtype) <= max_binding && elements < (uint64_t{1} << 31) &&
         lanes.chunks() <= kMaxReduceChunks && lanes.partials() * kPartialBytes <= max_binding &&
         lanes.partials() < max_partials;
}

/// Records both passes of reduce over x into out (both contiguous): partial_source from x into
/// a scratch buffer, finish_source from there into out. scratch(bytes, &range) gives the scratch
/// buffer, held while the pointer it returns lives (freed once recorded: whatever reuses its
/// slice is recorded after, so runs after). dispatch(source, parameters, tensors, workgroups)
/// records one kernel; at most max_groups workgroups (the kernels loop over the rest).
template <typename Range, typename Scratch, typename Dispatch>
void record_reduce_passes(const ir::Reduce& reduce, const ir::TensorMeta& x_meta, const Range& x,
                          const Range& out, const std::string& partial_source,
                          const std::string& finish_source, uint32_t max_groups,
                          const Scratch& scratch, const Dispatch& dispatch) {
  const ReduceLanes lanes = ReduceLanes::of(reduce, x_meta.shape);
  if (lanes.outputs() == 0) return;
  const std::vector<uint32_t> words = {
      static_cast<uint32_t>(lanes.outputs()), static_cast<uint32_t>(lanes.n),
      static_cast<uint32_t>(lanes.inner), static_cast<uint32_t>(lanes.chunks())};
  Range partial;
  const std::shared_ptr<const void> held = scratch(lanes.partials() * kPartialBytes, &partial);
  const auto pass = [&](const std::string& source, const Range& from, const Range& to,
                        uint64_t invocations) {
    const Range tensors[] = {from, to};
    const uint64_t groups = (invocations + kReduceWorkgroup - 1) / kReduceWorkgroup;
    dispatch(source, std::as_bytes(std::span(words)), std::span<const Range>(tensors),
             static_cast<uint32_t>(std::min<uint64_t>(groups, max_groups)));
  };
  pass(partial_source, x, partial, lanes.partials());
  pass(finish_source, partial, out, lanes.outputs());
}

}  // namespace ember::shader
