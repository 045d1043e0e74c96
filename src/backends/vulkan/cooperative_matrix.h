// Whether a physical device offers the f16 cooperative matrices the f16 matmul uses
// (VK_NV_cooperative_matrix, the extension Debian's shaderc compiles for), and the shape it
// multiplies. A driver without them answers "no" on every path (no extension, no feature, no
// entry point, no suitable shape), and the device is made exactly as without this check.
#pragma once

#include <vulkan/vulkan.h>

#include <optional>
#include <string_view>

#include "backends/vulkan/vulkan_context.h"

namespace ember::vulkan {

/// The variable that replaces the cooperative kernel's default layout, to tune it on a new GPU:
/// six numbers, "subgroup_rows,subgroup_cols,tile_rows,tile_cols,k_steps,shared_buffers" (the
/// fields of CooperativeLayout; bench/results/gpu_backends.md has a sweep). A device whose limits
/// the layout does not fit runs its f16 products on the tiled kernel.
inline constexpr const char* kCooperativeLayoutVariable = "EMBER_VULKAN_COOPERATIVE_LAYOUT";

/// The layout text names (kCooperativeLayoutVariable's form). ConfigError, naming the variable and
/// the text, where it is not six positive numbers of at most 16, shared_buffers is neither 1 nor 2,
/// or the output tile is not square.
CooperativeLayout parse_cooperative_layout(std::string_view text);

/// The shape the f16 matmul uses on device (of instance), or nullopt: the extension and its
/// cooperativeMatrix feature, f16 and 16-bit storage, the Vulkan memory model, subgroup
/// operations in compute shaders, and a shape of f16 operands with f32 accumulators in a
/// subgroup with m == n (16 x 16 x 16 preferred) whose kernel fits the device's shared memory
/// and workgroup limits, in the layout kCooperativeLayoutVariable names (or the default).
std::optional<CooperativeShape> cooperative_f16_shape(VkInstance instance, VkPhysicalDevice device);

}  // namespace ember::vulkan
