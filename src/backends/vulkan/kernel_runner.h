// The vulkan backend's KernelRunner (shader/kernel_runner.h), which every kernel class holds: the
// limits of the device's Features, the KernelCache that compiles GLSL and the CommandStream.
#pragma once

#include "backends/shader/device_limits.h"
#include "backends/shader/kernel_runner.h"
#include "backends/vulkan/command_stream.h"
#include "backends/vulkan/device_pages.h"
#include "backends/vulkan/kernel_cache.h"
#include "backends/vulkan/vulkan_context.h"

namespace ember::vulkan {

using KernelRunner = shader::KernelRunner<KernelCache, CommandStream, BufferRange>;

/// The limits of a physical device: those of its features, and the loop turns of a CPU device
/// (lavapipe) or of a GPU by its type, and the turns of a dispatch.
inline shader::DeviceLimits device_limits(const PhysicalDevice& physical) {
  const Features& features = physical.features;
  const bool cpu_device = physical.kind.type() == DeviceKind::Type::Cpu;
  return {features.max_storage_range,        features.max_groups_x,
          features.max_shared_bytes,         features.max_storage_buffers,
          shader::loop_turns_on(cpu_device), shader::dispatch_turns_on(cpu_device),
          shader::fill_groups_on(cpu_device)};
}

}  // namespace ember::vulkan
