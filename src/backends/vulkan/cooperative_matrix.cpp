#include "backends/vulkan/cooperative_matrix.h"

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "backends/vulkan/matmul_sources.h"
#include "ember/error.h"

namespace ember::vulkan {
namespace {

bool has_extension(VkPhysicalDevice device, const char* name) {
  uint32_t count = 0;
  if (vkEnumerateDeviceExtensionProperties(device, nullptr, &count, nullptr) != VK_SUCCESS)
    return false;
  std::vector<VkExtensionProperties> extensions(count);
  if (vkEnumerateDeviceExtensionProperties(device, nullptr, &count, extensions.data()) !=
      VK_SUCCESS)
    return false;
  for (const VkExtensionProperties& extension : extensions)
    if (std::strcmp(extension.extensionName, name) == 0) return true;
  return false;
}

/// The features the kernel needs besides the extension's: f16 arithmetic and storage, and the
/// Vulkan memory model (the scopes of GL_KHR_memory_scope_semantics).
bool has_features(VkPhysicalDevice device) {
  VkPhysicalDeviceCooperativeMatrixFeaturesNV cooperative{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
  VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
                                       &cooperative};
  VkPhysicalDeviceVulkan11Features v11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES, &v12};
  VkPhysicalDeviceFeatures2 all{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &v11};
  vkGetPhysicalDeviceFeatures2(device, &all);
  return cooperative.cooperativeMatrix == VK_TRUE && v12.shaderFloat16 == VK_TRUE &&
         v11.storageBuffer16BitAccess == VK_TRUE && v12.vulkanMemoryModel == VK_TRUE;
}

/// The subgroup size where compute shaders have basic subgroup operations, else 0.
uint32_t compute_subgroup_size(VkPhysicalDevice device) {
  VkPhysicalDeviceSubgroupProperties subgroup{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceProperties2 properties{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &subgroup};
  vkGetPhysicalDeviceProperties2(device, &properties);
  const bool compute = (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0 &&
                       (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_BASIC_BIT) != 0;
  return compute ? subgroup.subgroupSize : 0;
}

/// The shapes of f16 operands and f32 accumulators in a subgroup the driver reports.
std::vector<VkCooperativeMatrixPropertiesNV> f16_shapes(VkInstance instance,
                                                        VkPhysicalDevice device) {
  const auto list = reinterpret_cast<PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesNV>(
      vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesNV"));
  if (list == nullptr) return {};
  uint32_t count = 0;
  if (list(device, &count, nullptr) != VK_SUCCESS) return {};
  std::vector<VkCooperativeMatrixPropertiesNV> all(
      count, VkCooperativeMatrixPropertiesNV{VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV});
  if (list(device, &count, all.data()) != VK_SUCCESS) return {};
  std::vector<VkCooperativeMatrixPropertiesNV> f16;
  for (const VkCooperativeMatrixPropertiesNV& shape : all)
    if (shape.AType == VK_COMPONENT_TYPE_FLOAT16_NV &&
        shape.BType == VK_COMPONENT_TYPE_FLOAT16_NV &&
        shape.CType == VK_COMPONENT_TYPE_FLOAT32_NV &&
        shape.DType == VK_COMPONENT_TYPE_FLOAT32_NV && shape.scope == VK_SCOPE_SUBGROUP_NV &&
        shape.MSize == shape.NSize)
      f16.push_back(shape);
  return f16;
}

/// Whether the kernel of shape fits the device's limits: its shared memory and its workgroup.
bool fits(const CooperativeShape& shape, const VkPhysicalDeviceLimits& limits) {
  return cooperative_shared_bytes(shape) <= limits.maxComputeSharedMemorySize &&
         cooperative_workgroup(shape) <= limits.maxComputeWorkGroupInvocations &&
         cooperative_workgroup(shape) <= limits.maxComputeWorkGroupSize[0];
}

/// The layout the environment names, or the default.
CooperativeLayout configured_layout() {
  const char* text = std::getenv(kCooperativeLayoutVariable);
  return text == nullptr ? CooperativeLayout{} : parse_cooperative_layout(text);
}

}  // namespace

CooperativeLayout parse_cooperative_layout(std::string_view text) {
  const auto refuse = [&](const std::string& why) {
    return ConfigError(std::string("[vulkan] ") + kCooperativeLayoutVariable + "=\"" +
                       std::string(text) + "\": " + why);
  };
  uint32_t values[6] = {};
  const char* at = text.data();
  const char* const end = text.data() + text.size();
  for (int i = 0; i < 6; ++i) {
    if (i > 0 && (at == end || *at++ != ','))
      throw refuse(
          "six numbers separated by commas are expected "
          "(subgroup_rows,subgroup_cols,tile_rows,tile_cols,k_steps,shared_buffers)");
    const auto [next, error] = std::from_chars(at, end, values[i]);
    if (error != std::errc() || values[i] == 0 || values[i] > 16)
      throw refuse("each number is from 1 to 16");
    at = next;
  }
  if (at != end) throw refuse("text after the sixth number");
  const CooperativeLayout layout{values[0], values[1], values[2], values[3], values[4], values[5]};
  if (layout.shared_buffers > 2) throw refuse("shared_buffers is 1 or 2");
  if (layout.subgroup_rows * layout.tile_rows != layout.subgroup_cols * layout.tile_cols)
    throw refuse(
        "the output tile must be square: subgroup_rows * tile_rows == subgroup_cols * "
        "tile_cols");
  return layout;
}

std::optional<CooperativeShape> cooperative_f16_shape(VkInstance instance,
                                                      VkPhysicalDevice device) {
  if (!has_extension(device, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME) || !has_features(device))
    return std::nullopt;
  const uint32_t subgroup_size = compute_subgroup_size(device);
  if (subgroup_size == 0) return std::nullopt;
  VkPhysicalDeviceProperties properties;
  vkGetPhysicalDeviceProperties(device, &properties);
  const CooperativeLayout layout = configured_layout();
  std::optional<CooperativeShape> chosen;
  for (const VkCooperativeMatrixPropertiesNV& reported : f16_shapes(instance, device)) {
    const CooperativeShape shape{reported.MSize, reported.NSize, reported.KSize, subgroup_size,
                                 layout};
    if (!fits(shape, properties.limits)) continue;
    const bool preferred = shape.m == 16 && shape.k == 16;
    if (!chosen || preferred) chosen = shape;
    if (preferred) break;
  }
  return chosen;
}

}  // namespace ember::vulkan
