// The geometry of the shader backends' convolution kernels (vulkan's and wgpu's
// conv_pool_kernels), written once: which cases they take, their parameter words and their
// workgroups. Only the kernels' sources differ between the backends.
//
// Conv (both directions): one invocation per output element gathers its input patch on the fly,
// kernel positions in row-major order and input channels innermost, as ndarray's conv.cpp adds
// them (an implicit GEMM whose reduction dim is (kernel position, input channel)); bias is added
// last. ConvWeightGrad: one workgroup per weight element, its 256 invocations striding over the
// (sample, output position) pairs, their sums added in shared memory.
//
// Both read the same words: count (outputs, or weight elements), transposed, batch, groups,
// C_in / groups, C_out / groups, then three words each (front-padded to 3 spatial dims) of x's
// extents, the output's, the kernel's, stride, padding, dilation.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "backends/shader/spatial_dispatch.h"
#include "ir/ops.h"

namespace ember::shader {

/// The parameter words of a convolution of geometry g from x to out with a weight of shape
/// weight, whose kernel covers count elements (outputs or weight elements).
inline std::vector<uint32_t> conv_words(const ir::ConvGeometry& g, const Shape& x,
                                        const Shape& weight, const Shape& out, uint64_t count) {
  const auto groups = static_cast<uint64_t>(g.groups);
  std::vector<uint32_t> words = {static_cast<uint32_t>(count),
                                 g.transposed ? 1u : 0u,
                                 static_cast<uint32_t>(x[0]),
                                 static_cast<uint32_t>(groups),
                                 static_cast<uint32_t>(static_cast<uint64_t>(x[1]) / groups),
                                 static_cast<uint32_t>(static_cast<uint64_t>(out[1]) / groups)};
  append_words(words, {spatial3(x), spatial3(out), spatial3(weight), per_dim3(g.stride, 1),
                       per_dim3(g.padding, 0), per_dim3(g.dilation, 1)});
  return words;
}

/// The workgroups of Conv of (x, weight[, bias]) into out on a device of limits: one invocation
/// an output element; nullopt where the kernel does not take it (a dtype it does not compute, an
/// empty or too large tensor, an output's sum of more products than an invocation may loop over).
inline std::optional<SpatialGroups> conv_groups(const SpatialLimits& limits, const ir::Conv& conv,
                                                std::span<const ir::TensorMeta> inputs,
                                                const ir::TensorMeta& out) {
  std::vector<ir::TensorMeta> metas(inputs.begin(), inputs.end());
  metas.push_back(out);
  if (!spatial_tensors_fit(limits, metas)) return std::nullopt;
  const auto in_per_group = static_cast<uint64_t>(inputs[0].shape[1] / conv.geometry.groups);
  // The loop over kernel positions, and for each the one over the group's input channels.
  if (volume3(spatial3(inputs[1].shape)) * (in_per_group + 1) > kMaxLoopTurns) return std::nullopt;
  return groups_per_element(static_cast<uint64_t>(out.shape.num_elements()), limits.max_groups);
}

/// The workgroups of ConvWeightGrad of (x, grad_output) into out (the weight's gradient): one
/// workgroup a weight element; nullopt where the kernel does not take it (as conv_groups, or
/// more (sample, position) pairs than 256 invocations may loop over).
inline std::optional<SpatialGroups> conv_weight_grad_groups(const SpatialLimits& limits,
                                                            const ir::ConvWeightGrad& op,
                                                            std::span<const ir::TensorMeta> inputs,
                                                            const ir::TensorMeta& out) {
  const ir::TensorMeta metas[] = {inputs[0], inputs[1], out};
  if (!spatial_tensors_fit(limits, metas)) return std::nullopt;
  // The pairs' near side: the output positions (x's, transposed), for every sample.
  const Shape& near = op.geometry.transposed ? inputs[0].shape : inputs[1].shape;
  const uint64_t pairs = static_cast<uint64_t>(near[0]) * volume3(spatial3(near));
  // The strided loop, then the 8 halvings of the shared-memory sum.
  if ((pairs + kSpatialWorkgroup - 1) / kSpatialWorkgroup + 8 > kMaxLoopTurns) return std::nullopt;
  return spatial_groups(static_cast<uint64_t>(out.shape.num_elements()), limits.max_groups);
}

}  // namespace ember::shader
