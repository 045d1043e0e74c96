// The two passes of the shader backends' reductions (vulkan's and wgpu's reduce_sources), written
// once: x seen as [rows, n, inner] around the reduced dim, each lane cut into chunks (chunk c of
// C: the lane's elements c, c + C, c + 2C, ..., so that neighbouring invocations read
// neighbouring elements); the first pass reduces each chunk in order (one invocation a chunk)
// into a scratch buffer of partial_bytes a chunk, the second combines each lane's chunks in
// order into the output (the extremes by their elements' indices). Only the kernels' sources
// differ between the backends. Both kernels read the same parameter words: outputs, n, inner,
// chunks, correction (Var's).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "backends/shader/lane_geometry.h"
#include "ir/ops.h"

namespace ember::shader {

/// The invocations of a workgroup in both passes' kernels.
constexpr uint64_t kReduceWorkgroup = 256;
/// The most elements of a chunk, which one invocation reduces in the first pass. Note: lavapipe
/// (llvmpipe) ends an invocation's loops after 65535 turns in all, silently, so no invocation may
/// loop longer (Var's chunk is read twice: 8192 turns).
constexpr uint64_t kReduceChunk = 4096;
/// The fewest elements of a chunk: shorter chunks would spend the first pass on its writes.
constexpr uint64_t kMinReduceChunk = 64;
/// The first pass's invocations that few lanes are spread over (chunks shortened down to
/// kMinReduceChunk): a whole-tensor reduction is not one invocation's loop.
constexpr uint64_t kSpreadInvocations = 65536;
/// The most chunks of a lane the second pass combines (lavapipe's loop limit again).
constexpr uint64_t kMaxReduceChunks = 16384;

/// x as [rows, n, inner] around the reduced dim (the whole tensor, one lane, when there is none),
/// and its chunks.
struct ReduceLanes : LaneGeometry {
  static ReduceLanes of(const ir::Reduce& reduce, const Shape& shape) {
    if (!reduce.dim) return {{1, static_cast<uint64_t>(shape.num_elements()), 1}};
    return along(shape, *reduce.dim);
  }
  /// shape's lanes along dim (non-negative, < rank).
  static ReduceLanes along(const Shape& shape, int64_t dim) {
    return {LaneGeometry::around(shape, dim)};
  }

  uint64_t outputs() const { return lanes(); }
  /// The elements of a chunk: kReduceChunk (a lane of up to that many, or of at most
  /// kMinReduceChunk, is one chunk: reduced in ndarray's order, so exactly ndarray's result),
  /// shorter where few lanes would leave the first pass fewer than kSpreadInvocations
  /// invocations, long enough for at most kMaxReduceChunks chunks.
  uint64_t chunk() const {
    if (n <= kMinReduceChunk) return kReduceChunk;
    const uint64_t wanted_chunks = ceil_div(kSpreadInvocations, std::max<uint64_t>(1, outputs()));
    const uint64_t spread = std::clamp(ceil_div(n, wanted_chunks), kMinReduceChunk, kReduceChunk);
    return std::max(spread, ceil_div(n, kMaxReduceChunks));
  }
  /// The chunks of a lane; one for an empty lane (its sum, 0, is written by the passes).
  uint64_t chunks() const { return std::max<uint64_t>(1, ceil_div(n, chunk())); }
  uint64_t partials() const { return outputs() * chunks(); }
};

/// Whether the kernels take op on a dtype of which they hold: floating (a float: every op), integer
/// (i32 or u32: max, min, argmax, argmin, any, all; sums and products of integers wrap, left to
/// the host), boolean (Bool: any, all).
inline bool reduce_kernels_take(ir::ReduceOp op, bool floating, bool integer, bool boolean) {
  switch (op) {
    case ir::ReduceOp::Sum:
    case ir::ReduceOp::Mean:
    case ir::ReduceOp::Prod:
    case ir::ReduceOp::Var:
      return floating;
    case ir::ReduceOp::Max:
    case ir::ReduceOp::Min:
    case ir::ReduceOp::ArgMax:
    case ir::ReduceOp::ArgMin:
      return floating || integer;
    case ir::ReduceOp::Any:
    case ir::ReduceOp::All:
      return floating || integer || boolean;
  }
  return false;
}

/// Whether the two passes take reduce of x into out on a device whose kernels bind at most
/// max_binding bytes and keep partial_bytes a chunk: a lane that is not empty (but Sum's: 0;
/// ndarray's other reductions of none are its errors or NaN, left to it), Var's correction in
/// [0, 2^31), x, out (an index may be wider than x's elements) and the partial results within
/// one binding, fewer than 2^31 elements (the kernels count in 32 bits), chunks of at most
/// kReduceChunk and fewer than max_partials chunks in all. The op and dtypes are the backend's
/// to check.
inline bool reduce_passes_take(const ir::Reduce& reduce, const ir::TensorMeta& x,
                               const ir::TensorMeta& out, uint64_t max_binding,
                               uint64_t partial_bytes, uint64_t max_partials) {
  const ReduceLanes lanes = ReduceLanes::of(reduce, x.shape);
  if (reduce.op != ir::ReduceOp::Sum && lanes.n == 0) return false;
  if (reduce.correction < 0 || reduce.correction >= (int64_t{1} << 31)) return false;
  const auto elements = static_cast<uint64_t>(x.shape.num_elements());
  const uint64_t out_bytes =
      static_cast<uint64_t>(out.shape.num_elements()) * dtype_size(out.dtype);
  return elements * dtype_size(x.dtype) <= max_binding && out_bytes <= max_binding &&
         elements < (uint64_t{1} << 31) && lanes.chunk() <= kReduceChunk &&
         lanes.partials() * partial_bytes <= max_binding && lanes.partials() < max_partials;
}

/// Records both passes of reduce over x into out (both contiguous): partial_source from x into
/// a scratch buffer of partial_bytes a chunk, finish_source from there into out. scratch(bytes,
/// &range) gives the scratch buffer, held while the pointer it returns lives (freed once
/// recorded: whatever reuses its slice is recorded after, so runs after). dispatch(source,
/// parameters, tensors, workgroups) records one kernel; at most max_groups workgroups (the
/// kernels loop over the rest).
template <typename Range, typename Scratch, typename Dispatch>
void record_reduce_passes(const ir::Reduce& reduce, const ir::TensorMeta& x_meta, const Range& x,
                          const Range& out, const std::string& partial_source,
                          const std::string& finish_source, uint64_t partial_bytes,
                          uint32_t max_groups, const Scratch& scratch, const Dispatch& dispatch) {
  const ReduceLanes lanes = ReduceLanes::of(reduce, x_meta.shape);
  if (lanes.outputs() == 0) return;
  const std::vector<uint32_t> words = {
      static_cast<uint32_t>(lanes.outputs()), static_cast<uint32_t>(lanes.n),
      static_cast<uint32_t>(lanes.inner), static_cast<uint32_t>(lanes.chunks()),
      static_cast<uint32_t>(reduce.correction)};
  Range partial;
  const std::shared_ptr<const void> held = scratch(lanes.partials() * partial_bytes, &partial);
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
