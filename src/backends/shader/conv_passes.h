// The geometry of the shader backends' convolution kernels (vulkan's and wgpu's
// conv_pool_kernels), written once: which cases they take, their parameter words and their
// workgroups. Only the kernels' sources differ between the backends.
//
// Conv (both directions) is an implicit GEMM: [output channels of a group] x [(kernel position,
// input channel)] times [(kernel position, input channel)] x [output positions], the input patch
// gathered on the fly. The tiled kernel stages 16 x 16 tiles of both through shared memory (a
// workgroup writes 16 channels at 16 positions); the direct one, for groups of few output
// channels, has an invocation gather its own. Both add kernel positions in row-major order and
// input channels innermost, skipping taps in the padding, as ndarray's conv.cpp does; bias last.
// ConvWeightGrad: one workgroup per weight element, its 256 invocations striding over rows of
// (sample, output d, output h) and walking each along w, their sums added in shared memory.
//
// Both read the same words: count (outputs, or weight elements), transposed, batch, groups,
// C_in / groups, C_out / groups, then three words each (front-padded to 3 spatial dims) of x's
// extents, the output's, the kernel's, stride, padding, dilation; Conv's then the output
// positions of all samples, the tiles along them and along a group's output channels.
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

/// Whether g's stride, padding and dilation and the kernel's extents (of weight) are within
/// kMaxGeometry.
inline bool conv_geometry_fits(const ir::ConvGeometry& g, const Shape& weight) {
  return geometry_fits(
      {spatial3(weight), per_dim3(g.stride, 1), per_dim3(g.padding, 0), per_dim3(g.dilation, 1)});
}

/// The tiled convolution kernel's tile: 16 output channels of a group by 16 output positions.
constexpr uint64_t kConvTile = 16;
/// The fewest output and input channels a group has for the tiled kernel to run a convolution:
/// with fewer (a depthwise convolution has one of each) most of a tile's rows or terms would
/// idle, and the direct kernel (an invocation an output element) runs it.
constexpr uint64_t kTiledConvChannels = 8;

/// How a Conv runs: its workgroups, which kernel, the parameter words (conv_words', then the
/// output positions of all samples, the tiles along them and along a group's output channels).
struct ConvDispatch {
  SpatialGroups groups;
  bool tiled = false;
  std::vector<uint32_t> words;
};

/// The dispatch of Conv of (x, weight[, bias]) into out on a device of limits: tiled where the
/// device runs the tiled kernel and a group has kTiledConvChannels output and input channels or
/// more, else one invocation an output element.
/// Both add an output's products in ndarray's order (kernel positions, and for each the input
/// channels). nullopt where the kernels do not take it (a dtype they do not compute, an empty or
/// too large tensor, an output's sum of more products than an invocation may loop over).
inline std::optional<ConvDispatch> conv_dispatch(const SpatialLimits& limits, const ir::Conv& conv,
                                                 std::span<const ir::TensorMeta> inputs,
                                                 const ir::TensorMeta& out) {
  std::vector<ir::TensorMeta> metas(inputs.begin(), inputs.end());
  metas.push_back(out);
  if (!spatial_tensors_fit(limits, metas) || !conv_geometry_fits(conv.geometry, inputs[1].shape))
    return std::nullopt;
  const auto groups = static_cast<uint64_t>(conv.geometry.groups);
  const auto in_per_group = static_cast<uint64_t>(inputs[0].shape[1]) / groups;
  const auto out_per_group = static_cast<uint64_t>(out.shape[1]) / groups;
  const uint64_t kernel_volume = volume3(spatial3(inputs[1].shape));
  const auto outputs = static_cast<uint64_t>(out.shape.num_elements());
  const uint64_t positions = static_cast<uint64_t>(out.shape[0]) * volume3(spatial3(out.shape));
  const uint64_t position_tiles = (positions + kConvTile - 1) / kConvTile;
  const uint64_t channel_tiles = (out_per_group + kConvTile - 1) / kConvTile;
  ConvDispatch dispatch{{},
                        limits.tiled_conv && out_per_group >= kTiledConvChannels &&
                            in_per_group >= kTiledConvChannels,
                        {}};
  // Tiled: for each kernel position, the loop over tiles of 16 input channels and in each over
  // its 16 terms; direct: the three loops over the kernel's dims, and in the innermost the one
  // over the group's input channels.
  const uint64_t channel_chunks = (in_per_group + kConvTile - 1) / kConvTile;
  const uint64_t turns = dispatch.tiled ? kernel_volume * (1 + channel_chunks * (kConvTile + 1))
                                        : kernel_volume * (in_per_group + 3);
  if (turns > limits.max_loop_turns) return std::nullopt;
  const std::optional<SpatialGroups> groups_of =
      dispatch.tiled ? spatial_groups(groups * channel_tiles * position_tiles, limits.max_groups)
                     : groups_per_element(outputs, limits.max_groups);
  if (!groups_of) return std::nullopt;
  dispatch.groups = *groups_of;
  dispatch.words = conv_words(conv.geometry, inputs[0].shape, inputs[1].shape, out.shape, outputs);
  for (const uint64_t word : {positions, position_tiles, channel_tiles})
    dispatch.words.push_back(static_cast<uint32_t>(word));
  return dispatch;
}

/// The workgroups of ConvWeightGrad of (x, grad_output) into out (the weight's gradient): one
/// workgroup a weight element; nullopt where the kernel does not take it (as conv_dispatch, or
/// more (sample, position) pairs than 256 invocations may loop over).
inline std::optional<SpatialGroups> conv_weight_grad_groups(const SpatialLimits& limits,
                                                            const ir::ConvWeightGrad& op,
                                                            std::span<const ir::TensorMeta> inputs,
                                                            const ir::TensorMeta& out) {
  const ir::TensorMeta metas[] = {inputs[0], inputs[1], out};
  if (!spatial_tensors_fit(limits, metas) || !conv_geometry_fits(op.geometry, op.weight_shape))
    return std::nullopt;
  // The near side: the output's positions (x's, transposed). A lane walks rows of (sample, d, h)
  // along w; then the 8 halvings of the shared-memory sum.
  const Shape& near = op.geometry.transposed ? inputs[0].shape : inputs[1].shape;
  const std::array<uint64_t, 3> extents = spatial3(near);
  const uint64_t rows = static_cast<uint64_t>(near[0]) * extents[0] * extents[1];
  if ((rows + kSpatialWorkgroup - 1) / kSpatialWorkgroup * (extents[2] + 1) + 8 >
      limits.max_loop_turns)
    return std::nullopt;
  return spatial_groups(static_cast<uint64_t>(out.shape.num_elements()), limits.max_groups);
}

}  // namespace ember::shader
