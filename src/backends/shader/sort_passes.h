// The shader backends' stable sort along one dim (vulkan's and wgpu's sort_kernel), written once:
// x seen as [rows, n, inner] around the sorted dim, one workgroup a lane. The workgroup loads its
// lane into shared memory padded to a power of two, sorts (key, position) pairs with a bitonic
// network, and writes each sorted element (read again from x, so every bit of it, a NaN's payload
// included) and its position. Ordering by (key, position) makes the network's result the stable
// order: equal keys keep their original order in both directions, as ndarray's std::stable_sort.
// NaN is the largest key (PyTorch), NaNs equal to each other. Only the kernels' sources differ
// between the backends; both read the same parameter words: lanes, n, inner, padded n,
// descending, wide (positions as i64: two words each, the high one zero).
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "backends/shader/reduce_passes.h"
#include "ir/ops.h"

namespace ember::shader {

/// The invocations of a sort workgroup.
constexpr uint64_t kSortWorkgroup = 256;
/// The longest lane a workgroup sorts in its shared memory (keys and positions: 16 KiB).
constexpr uint64_t kMaxSortLane = 2048;

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

/// Whether the sort kernels take sort of x on a device whose kernels bind at most max_binding
/// bytes and dispatch at most max_groups workgroups: a 32-bit key, i64 or i32 positions, lanes of
/// at most kMaxSortLane elements, fewer than 2^31 elements, x and both outputs within one binding,
/// and each invocation's loops below lavapipe's limit of 65535 turns (lanes per workgroup times
/// the network's stages times the elements an invocation handles at each).
inline bool sort_kernels_take(const ir::Sort& sort, const ir::TensorMeta& x, uint64_t max_binding,
                              uint64_t max_groups) {
  const ReduceLanes lanes = ReduceLanes::along(x.shape, sort.dim);
  const auto elements = static_cast<uint64_t>(x.shape.num_elements());
  if (!sort_kernels_key(x.dtype) ||
      (sort.index_dtype != DType::I64 && sort.index_dtype != DType::I32) ||
      lanes.n > kMaxSortLane || elements >= (uint64_t{1} << 31) ||
      elements * dtype_size(sort.index_dtype) > max_binding || elements * 4 > max_binding)
    return false;
  uint64_t stages = 0;
  for (uint64_t k = 2; k <= sort_padded(lanes.n); k *= 2)
    for (uint64_t j = k / 2; j > 0; j /= 2)
      ++stages;
  const uint64_t per_invocation = (sort_padded(lanes.n) + kSortWorkgroup - 1) / kSortWorkgroup;
  const uint64_t lanes_per_group = (lanes.outputs() + max_groups - 1) / max_groups;
  return lanes_per_group * (stages + 3) * per_invocation < 60000;
}

/// Records sort of x into values and positions (all contiguous): dispatch(source, parameters,
/// tensors, workgroups) records the kernel, at most max_groups workgroups (the kernel loops over
/// the remaining lanes).
template <typename Range, typename Dispatch>
void record_sort(const ir::Sort& sort, const ir::TensorMeta& x_meta, const Range& x,
                 const Range& values, const Range& positions, const std::string& source,
                 uint32_t max_groups, const Dispatch& dispatch) {
  const ReduceLanes lanes = ReduceLanes::along(x_meta.shape, sort.dim);
  if (lanes.outputs() == 0 || lanes.n == 0) return;
  const std::vector<uint32_t> words = {static_cast<uint32_t>(lanes.outputs()),
                                       static_cast<uint32_t>(lanes.n),
                                       static_cast<uint32_t>(lanes.inner),
                                       static_cast<uint32_t>(sort_padded(lanes.n)),
                                       sort.descending ? 1u : 0u,
                                       sort.index_dtype == DType::I64 ? 1u : 0u};
  const Range tensors[] = {x, values, positions};
  dispatch(source, std::as_bytes(std::span(words)), std::span<const Range>(tensors),
           static_cast<uint32_t>(std::min<uint64_t>(lanes.outputs(), max_groups)));
}

}  // namespace ember::shader
