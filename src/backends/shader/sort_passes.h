// The shader backends' stable sort along one dim (vulkan's and wgpu's sort_sources), written once:
// x seen as [rows, n, inner] around the sorted dim. A lane of at most kMaxSortLane elements is
// sorted by one workgroup: it loads the lane into shared memory padded to a power of two, sorts
// (key, position) pairs with a bitonic network, and writes each sorted element (read again from
// x, so every bit of it, a NaN's payload included) and its position. A longer lane is sorted in
// passes over global memory: its blocks of kMaxSortLane elements each sorted by one workgroup
// as above, into (key, position) pairs in a scratch buffer; then merge passes, each merging
// pairs of neighbouring sorted runs (each pair finds its place in the merged run by a binary
// search in the other run), the runs doubling until one covers the lane; last a gather of the
// sorted keys (x's words, every bit) and positions into the outputs. Ordering by (key, position)
// makes the result the stable order: equal keys keep their original order in both directions,
// as ndarray's std::stable_sort, and every comparison is strict, so a merge places each pair
// exactly once. NaN is the largest key (PyTorch), NaNs equal to each other. Only the kernels'
// sources differ between the backends; all read the same parameter words: lanes, n, inner,
// padded n (a block's, for a long lane), descending, wide (positions as i64: two words each, the
// high one zero), the merge's run width, the blocks of a lane.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "backends/shader/device_limits.h"
#include "backends/shader/index_copy.h"
#include "backends/shader/reduce_passes.h"
#include "ir/ops.h"

namespace ember::shader {

/// The invocations of a sort workgroup.
constexpr uint64_t kSortWorkgroup = 256;
/// The longest lane (or block of a longer lane) a workgroup sorts in its shared memory (keys and
/// positions: 16 KiB).
constexpr uint64_t kMaxSortLane = 2048;
/// The bytes of a (key, position) pair in the long sort's scratch buffers.
constexpr uint64_t kSortPairBytes = 8;

/// The power of two a lane of n elements is padded to (at least 2: the network's smallest).
inline uint64_t sort_padded(uint64_t n) {
  uint64_t padded = 2;
  while (padded < n)
    padded *= 2;
  return padded;
}

/// The dtypes of the keys the sort kernels take: 32-bit words, compared as floats or integers.
inline bool sort_kernels_key(DType dtype) {
  return dtype == DType::F32 || dtype == DType::I32 || dtype == DType::U32;
}

/// The sort's lanes and how they are cut: one block a lane of at most kMaxSortLane elements
/// (padded to a power of two), else blocks of kMaxSortLane.
struct SortBlocks {
  ReduceLanes lanes;
  uint64_t padded = 2;
  uint64_t blocks = 1;

  static SortBlocks of(const ir::Sort& sort, const Shape& shape) {
    SortBlocks cut{ReduceLanes::along(shape, sort.dim)};
    const bool whole = cut.lanes.n <= kMaxSortLane;
    cut.padded = whole ? sort_padded(cut.lanes.n) : kMaxSortLane;
    cut.blocks = whole ? 1 : ceil_div(cut.lanes.n, kMaxSortLane);
    return cut;
  }
  bool whole() const { return blocks == 1; }
  uint64_t elements() const { return lanes.outputs() * lanes.n; }
};

/// Whether each invocation's loops stay below max_turns (the device's) with at most max_groups
/// workgroups: in the network, blocks per workgroup times the network's stages times
/// the elements an invocation handles at each; in a merge, the pairs per invocation times a
/// binary search's steps.
inline bool sort_loops_fit(const SortBlocks& cut, uint64_t max_groups, uint64_t max_turns) {
  uint64_t stages = 0;
  for (uint64_t k = 2; k <= cut.padded; k *= 2)
    for (uint64_t j = k / 2; j > 0; j /= 2)
      ++stages;
  const uint64_t per_invocation = ceil_div(cut.padded, kSortWorkgroup);
  const uint64_t blocks_per_group = ceil_div(cut.lanes.outputs() * cut.blocks, max_groups);
  uint64_t search_steps = 2;
  for (uint64_t width = 1; width < cut.lanes.n; width *= 2)
    ++search_steps;
  const uint64_t pairs_per_invocation = ceil_div(cut.elements(), max_groups * kSortWorkgroup);
  return blocks_per_group * (stages + 3) * per_invocation < max_turns &&
         (cut.whole() || pairs_per_invocation * search_steps < max_turns);
}

/// Whether the sort kernels take sort of x on a device of limits: a 32-bit key, i64 or i32
/// positions, fewer than 2^31 elements, x, both outputs and (for a long lane) the scratch pairs
/// within one binding, and each invocation's loops within the device's turns.
inline bool sort_kernels_take(const ir::Sort& sort, const ir::TensorMeta& x,
                              const DeviceLimits& limits) {
  const uint64_t max_binding = limits.max_binding;
  const SortBlocks cut = SortBlocks::of(sort, x.shape);
  const uint64_t elements = cut.elements();
  const uint64_t scratch = cut.whole() ? 0 : elements * kSortPairBytes;
  return sort_kernels_key(x.dtype) &&
         (sort.index_dtype == DType::I64 || sort.index_dtype == DType::I32) &&
         elements < (uint64_t{1} << 31) && elements * dtype_size(sort.index_dtype) <= max_binding &&
         elements * 4 <= max_binding && scratch <= max_binding &&
         sort_loops_fit(cut, limits.max_groups, limits.max_loop_turns);
}

/// The statements, the same in GLSL and WGSL, that write a sorted element's position `at` at
/// `dest` of the positions: two words when `wide` (an i64: the high word zero), else one.
constexpr const char* kWriteSortPosition = R"(      if (wide) {
        positions[2u * dest] = at;
        positions[2u * dest + 1u] = 0u;
      } else {
        positions[dest] = at;
      }
)";

/// A backend's sort kernels for one key dtype: whole, a lane of at most kMaxSortLane sorted by a
/// workgroup (x -> values, positions); blocks, each block of a long lane sorted by a workgroup
/// (x -> pairs); merge, neighbouring runs of p[6] pairs merged (pairs -> pairs); gather, the
/// sorted pairs into the outputs (pairs -> values, positions).
struct SortSources {
  std::string whole;
  std::string blocks;
  std::string merge;
  std::string gather;
};

/// Records sort of x into values and positions (all contiguous): dispatch(source, parameters,
/// tensors, workgroups) records a kernel, at most max_groups workgroups (the kernels loop over
/// the rest); scratch(bytes, &range) gives a long lane's scratch buffers, held while the pointer
/// it returns lives (freed once recorded: whatever reuses a slice is recorded after, so runs
/// after).
template <typename Range, typename Scratch, typename Dispatch>
void record_sort(const ir::Sort& sort, const ir::TensorMeta& x_meta, const Range& x,
                 const Range& values, const Range& positions, const SortSources& sources,
                 uint32_t max_groups, const Scratch& scratch, const Dispatch& dispatch) {
  const SortBlocks cut = SortBlocks::of(sort, x_meta.shape);
  if (cut.elements() == 0) return;
  std::vector<uint32_t> words = {static_cast<uint32_t>(cut.lanes.outputs()),
                                 static_cast<uint32_t>(cut.lanes.n),
                                 static_cast<uint32_t>(cut.lanes.inner),
                                 static_cast<uint32_t>(cut.padded),
                                 sort.descending ? 1u : 0u,
                                 sort.index_dtype == DType::I64 ? 1u : 0u,
                                 0u,
                                 static_cast<uint32_t>(cut.blocks)};
  const auto pass = [&](const std::string& source, std::initializer_list<Range> tensors,
                        uint32_t groups) {
    dispatch(source, std::as_bytes(std::span(words)),
             std::span<const Range>(tensors.begin(), tensors.size()), groups);
  };
  const auto group_a_block =
      static_cast<uint32_t>(std::min<uint64_t>(cut.lanes.outputs() * cut.blocks, max_groups));
  if (cut.whole()) {
    pass(sources.whole, {x, values, positions}, group_a_block);
    return;
  }
  Range from, to;
  const std::shared_ptr<const void> held_from = scratch(cut.elements() * kSortPairBytes, &from);
  const std::shared_ptr<const void> held_to = scratch(cut.elements() * kSortPairBytes, &to);
  const uint32_t group_per_256_pairs = groups_for(cut.elements(), max_groups);
  pass(sources.blocks, {x, from}, group_a_block);
  for (uint64_t width = kMaxSortLane; width < cut.lanes.n; width *= 2) {
    words[6] = static_cast<uint32_t>(width);
    pass(sources.merge, {from, to}, group_per_256_pairs);
    std::swap(from, to);
  }
  pass(sources.gather, {from, values, positions}, group_per_256_pairs);
}

}  // namespace ember::shader
