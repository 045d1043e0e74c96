// Whether a physical device offers the f16 cooperative matrices the f16 matmul uses
// (VK_NV_cooperative_matrix, the extension Debian's shaderc compiles for), and the shape it
// multiplies. A driver without them answers "no" on every path (no extension, no feature, no
// entry point, no suitable shape), and the device is made exactly as without this check.
#pragma once

#include <vulkan/vulkan.h>

#include <optional>

#include "backends/vulkan/vulkan_context.h"

namespace ember::vulkan {

/// The shape the f16 matmul uses on device (of instance), or nullopt: the extension and its
/// cooperativeMatrix feature, f16 and 16-bit storage, the Vulkan memory model, subgroup
/// operations in compute shaders, and a shape of f16 operands with f32 accumulators in a
/// subgroup with m == n (16 x 16 x 16 preferred) whose kernel fits the device's shared memory
/// and workgroup limits.
std::optional<CooperativeShape> cooperative_f16_shape(VkInstance instance, VkPhysicalDevice device);

}  // namespace ember::vulkan
