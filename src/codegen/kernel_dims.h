// The shape arguments of the program kernels (every emitter's): an output's sizes and each input's
// element strides along them, at most kProgramMaxRank dims.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "ember/shape.h"

namespace ember::codegen {

/// The most dims a program kernel's output may have (a backend running them declares it as its
/// FusionSupport::max_rank).
inline constexpr std::size_t kProgramMaxRank = 8;

/// One integer per dim of a program kernel's output: the output's sizes, or an input's element
/// strides. It is the kernel's by-value parameter type `struct ember_dims { long long d[8]; }`,
/// of the same layout (64 bytes, 8-byte aligned); entries from the rank on are unused.
struct KernelDims {
  int64_t d[kProgramMaxRank] = {};
};
static_assert(sizeof(KernelDims) == 64 && alignof(KernelDims) == 8);

/// shape's sizes. Throws InvalidArgument when shape has more than kProgramMaxRank dims.
KernelDims kernel_sizes(const Shape& shape);
/// The element strides along output's dims of a contiguous (row-major) input of shape input
/// broadcast to output (NumPy's rule, dims aligned on the right): 0 along the dims the input lacks
/// and where it has size 1, its row-major strides elsewhere. Throws InvalidArgument when input
/// does not broadcast to output or output has more than kProgramMaxRank dims.
KernelDims broadcast_strides(const Shape& input, const Shape& output);

/// A program's index space as its kernel walks it: the output's sizes and each input's element
/// strides (any sign) and offset, dims of size 1 dropped and neighbours merged wherever every
/// input's strides are those of one longer dim (a contiguous program of any shape becomes rank 1,
/// which spares the kernel its divisions).
struct MergedDims {
  std::vector<int64_t> sizes;
  std::vector<std::vector<int64_t>> strides;  ///< per input, one per entry of sizes
  std::vector<int64_t> offsets;               ///< per input, its element [0, ..., 0]
};
/// sizes (an output's) and per input its strides along them and its offset, merged.
MergedDims merge_dims(const std::vector<int64_t>& sizes,
                      const std::vector<std::vector<int64_t>>& strides,
                      std::vector<int64_t> offsets);
/// The output's sizes and each contiguous input broadcast to them (broadcast_strides), merged.
MergedDims merged_dims(const Shape& output, std::span<const Shape> inputs);

}  // namespace ember::codegen
