// How a layout op's output reads its input, as a view: the element strides along the output's
// dims (negative for flip, stepped for slice, 0 where expanded) and the offset of its first
// element. The GPU backends (vulkan, wgpu) copy such a view with their program kernels.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ember/shape.h"
#include "ir/ops.h"

namespace ember::codegen {

struct LayoutView {
  std::vector<int64_t> strides;  ///< one per dim of the output
  int64_t offset = 0;
};

/// The view by which op's output (of shape output) reads its contiguous input (of shape input),
/// for Permute, Flip, Expand and Slice; nullopt for any other op, and where the output has more
/// than kProgramMaxRank dims.
std::optional<LayoutView> layout_view(const ir::Op& op, const Shape& input, const Shape& output);

}  // namespace ember::codegen
