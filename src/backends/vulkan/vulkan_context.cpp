#include "backends/vulkan/vulkan_context.h"

#include <array>
#include <optional>
#include <utility>

#include "backends/vulkan/cooperative_matrix.h"
#include "ember/error.h"

namespace ember::vulkan {
namespace {

/// The process's instance, made once; VK_NULL_HANDLE when the loader has no driver. Note: never
/// destroyed, as the device contexts that use it live to the end of the process.
VkInstance instance() {
  static const VkInstance made = [] {
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "ember";
    app.pEngineName = "ember";
    app.apiVersion = VK_API_VERSION_1_2;
    VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    info.pApplicationInfo = &app;
    VkInstance handle = VK_NULL_HANDLE;
    return vkCreateInstance(&info, nullptr, &handle) == VK_SUCCESS ? handle : VK_NULL_HANDLE;
  }();
  return made;
}

std::optional<uint32_t> compute_family(VkPhysicalDevice device) {
  uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(device, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vkGetPhysicalDeviceQueueFamilyProperties(device, &count, families.data());
  for (uint32_t i = 0; i < count; ++i)
    if ((families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) != 0) return i;
  return std::nullopt;
}

Features features_of(VkPhysicalDevice device, uint32_t family) {
  VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceVulkan11Features v11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES, &v12};
  VkPhysicalDeviceFeatures2 all{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &v11};
  vkGetPhysicalDeviceFeatures2(device, &all);
  VkPhysicalDeviceProperties properties;
  vkGetPhysicalDeviceProperties(device, &properties);
  uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(device, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vkGetPhysicalDeviceQueueFamilyProperties(device, &count, families.data());
  Features f;
  f.float64 = all.features.shaderFloat64 == VK_TRUE;
  f.int64 = all.features.shaderInt64 == VK_TRUE;
  f.float16 = v12.shaderFloat16 == VK_TRUE;
  // Kernels convert 8- and 16-bit elements in registers too (uint16_t(bits)): SPIR-V's Int8 and
  // Int16 capabilities, which need shaderInt8 and shaderInt16 beside the storage features.
  f.storage8 = v12.storageBuffer8BitAccess == VK_TRUE && v12.shaderInt8 == VK_TRUE;
  f.storage16 = v11.storageBuffer16BitAccess == VK_TRUE && all.features.shaderInt16 == VK_TRUE;
  f.max_storage_range = properties.limits.maxStorageBufferRange;
  f.max_groups_x = properties.limits.maxComputeWorkGroupCount[0];
  f.max_shared_bytes = properties.limits.maxComputeSharedMemorySize;
  f.max_storage_buffers = properties.limits.maxPerStageDescriptorStorageBuffers;
  f.cooperative_f16 = cooperative_f16_shape(instance(), device);
  if (families[family].timestampValidBits != 0)
    f.timestamp_period = static_cast<double>(properties.limits.timestampPeriod);
  return f;
}

DeviceKind kind_of(VkPhysicalDeviceType type, uint32_t index) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return DeviceKind::discrete_gpu(index);
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return DeviceKind::integrated_gpu(index);
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return DeviceKind::virtual_gpu(index);
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
    case VK_PHYSICAL_DEVICE_TYPE_OTHER:
    case VK_PHYSICAL_DEVICE_TYPE_MAX_ENUM:
      break;
  }
  return DeviceKind::cpu();
}

std::vector<PhysicalDevice> find_physical_devices() {
  const VkInstance handle = instance();
  if (handle == VK_NULL_HANDLE) return {};
  uint32_t count = 0;
  if (vkEnumeratePhysicalDevices(handle, &count, nullptr) != VK_SUCCESS) return {};
  std::vector<VkPhysicalDevice> handles(count);
  if (vkEnumeratePhysicalDevices(handle, &count, handles.data()) != VK_SUCCESS) return {};
  std::vector<PhysicalDevice> devices;
  std::array<uint32_t, 4> of_type{};  // discrete, integrated, virtual, cpu
  for (VkPhysicalDevice device : handles) {
    VkPhysicalDeviceProperties properties;
    vkGetPhysicalDeviceProperties(device, &properties);
    const std::optional<uint32_t> family = compute_family(device);
    // 1.1 for the features query; kernels bind tensors at offsets of the pools' 64-byte slices.
    if (!family || properties.apiVersion < VK_API_VERSION_1_1 ||
        properties.limits.minStorageBufferOffsetAlignment > 64)
      continue;
    const DeviceKind probe = kind_of(properties.deviceType, 0);
    uint32_t& index = of_type[static_cast<std::size_t>(probe.type())];
    // Only the first CPU device has a kind (DeviceKind::cpu() has no index).
    if (probe.type() == DeviceKind::Type::Cpu && index > 0) continue;
    PhysicalDevice found;
    found.handle = device;
    found.kind = kind_of(properties.deviceType, index++);
    found.name = properties.deviceName;
    found.api_version = properties.apiVersion;
    found.queue_family = *family;
    found.features = features_of(device, *family);
    devices.push_back(std::move(found));
  }
  return devices;
}

}  // namespace

const std::vector<PhysicalDevice>& physical_devices() {
  static const std::vector<PhysicalDevice> devices = find_physical_devices();
  return devices;
}

const PhysicalDevice* select(const DeviceKind& kind) {
  const std::vector<PhysicalDevice>& devices = physical_devices();
  if (kind.type() == DeviceKind::Type::Default) {
    for (const DeviceKind::Type type :
         {DeviceKind::Type::DiscreteGpu, DeviceKind::Type::IntegratedGpu,
          DeviceKind::Type::VirtualGpu, DeviceKind::Type::Cpu})
      for (const PhysicalDevice& device : devices)
        if (device.kind.type() == type) return &device;
    return nullptr;
  }
  for (const PhysicalDevice& device : devices)
    if (device.kind == kind) return &device;
  return nullptr;
}

std::string result_name(VkResult result) {
  switch (result) {
    case VK_SUCCESS:
      return "VK_SUCCESS";
    case VK_NOT_READY:
      return "VK_NOT_READY";
    case VK_TIMEOUT:
      return "VK_TIMEOUT";
    case VK_ERROR_OUT_OF_HOST_MEMORY:
      return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
      return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED:
      return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_DEVICE_LOST:
      return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_FEATURE_NOT_PRESENT:
      return "VK_ERROR_FEATURE_NOT_PRESENT";
    case VK_ERROR_EXTENSION_NOT_PRESENT:
      return "VK_ERROR_EXTENSION_NOT_PRESENT";
    default:
      return "VkResult " + std::to_string(static_cast<int>(result));
  }
}

Context::Context(const PhysicalDevice& physical, std::string name)
    : physical_(physical), name_(std::move(name)) {
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue.queueFamilyIndex = physical.queue_family;
  queue.queueCount = 1;
  queue.pQueuePriorities = &priority;
  // The features the kernels use, where the device has them (Features says which).
  VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceVulkan11Features v11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES, &v12};
  VkPhysicalDeviceFeatures2 enabled{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &v11};
  const Features& f = physical.features;
  enabled.features.shaderFloat64 = f.float64 ? VK_TRUE : VK_FALSE;
  enabled.features.shaderInt64 = f.int64 ? VK_TRUE : VK_FALSE;
  v12.shaderFloat16 = f.float16 ? VK_TRUE : VK_FALSE;
  v12.storageBuffer8BitAccess = f.storage8 ? VK_TRUE : VK_FALSE;
  v12.shaderInt8 = f.storage8 ? VK_TRUE : VK_FALSE;
  v11.storageBuffer16BitAccess = f.storage16 ? VK_TRUE : VK_FALSE;
  enabled.features.shaderInt16 = f.storage16 ? VK_TRUE : VK_FALSE;
  // The f16 matmul's cooperative matrices, only where cooperative_f16_shape found all it needs:
  // any other device is made with exactly the extensions and features above.
  VkPhysicalDeviceCooperativeMatrixFeaturesNV cooperative{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
  const char* const extensions[] = {VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME};
  VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &enabled};
  if (f.cooperative_f16) {
    cooperative.cooperativeMatrix = VK_TRUE;
    v12.pNext = &cooperative;
    v12.vulkanMemoryModel = VK_TRUE;
    info.enabledExtensionCount = 1;
    info.ppEnabledExtensionNames = extensions;
  }
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queue;
  VkResult made = vkCreateDevice(physical.handle, &info, nullptr, &device_);
  if (made != VK_SUCCESS && f.cooperative_f16) {
    // A driver that lists the extension but makes no device with it: the device without it (its
    // f16 matmul on the tiled kernel), as on any other driver.
    physical_.features.cooperative_f16.reset();
    v12.pNext = nullptr;
    v12.vulkanMemoryModel = VK_FALSE;
    info.enabledExtensionCount = 0;
    info.ppEnabledExtensionNames = nullptr;
    made = vkCreateDevice(physical.handle, &info, nullptr, &device_);
  }
  check(made, "vkCreateDevice");
  vkGetDeviceQueue(device_, physical.queue_family, 0, &queue_);
}

Context::~Context() {
  // A lost device's work is gone: waiting on it would only report the loss again.
  vkDeviceWaitIdle(device_);
  vkDestroyDevice(device_, nullptr);
}

uint32_t Context::memory_type(uint32_t type_bits, VkMemoryPropertyFlags wanted) const {
  VkPhysicalDeviceMemoryProperties memory;
  vkGetPhysicalDeviceMemoryProperties(physical_.handle, &memory);
  for (uint32_t i = 0; i < memory.memoryTypeCount; ++i)
    if ((type_bits & (1u << i)) != 0 && (memory.memoryTypes[i].propertyFlags & wanted) == wanted)
      return i;
  throw ExecutionError("[" + name_ + "] no memory type with the properties " +
                       std::to_string(wanted) + " for a buffer");
}

void Context::check(VkResult result, const std::string& what) const {
  if (result == VK_SUCCESS) return;
  throw ExecutionError("[" + name_ + "] " + what + " failed: " + result_name(result));
}

void Context::check_fatal(VkResult result, const std::string& what) {
  if (result == VK_SUCCESS) return;
  const std::string reason = what + " failed: " + result_name(result);
  {
    const std::lock_guard lock(reason_mutex_);
    if (reason_.empty()) reason_ = reason;
  }
  poisoned_.store(true, std::memory_order_release);
  throw ExecutionError("[" + name_ + "] " + reason +
                       "; the device is poisoned: every later call on it fails");
}

void Context::check_usable() const {
  if (!poisoned()) return;
  const std::lock_guard lock(reason_mutex_);
  throw ExecutionError("[" + name_ + "] the device is poisoned by an earlier failure (" + reason_ +
                       "): no more work runs on it");
}

}  // namespace ember::vulkan
