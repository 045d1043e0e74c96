// The wgpu backend's KernelRunner (shader/kernel_runner.h), which every kernel class holds: the
// adapter's limits, the KernelCache that makes WGSL pipelines and the CommandStream.
#pragma once

#include "backends/shader/device_limits.h"
#include "backends/shader/kernel_runner.h"
#include "backends/wgpu/command_stream.h"
#include "backends/wgpu/device_pages.h"
#include "backends/wgpu/kernel_cache.h"
#include "backends/wgpu/wgpu_context.h"

namespace ember::wgpu {

using KernelRunner = shader::KernelRunner<KernelCache, CommandStream, BufferRange>;

/// The limits of adapter, and the loop turns of an invocation and of a dispatch on a CPU adapter
/// (lavapipe) or on a GPU, by its type.
inline shader::DeviceLimits device_limits(const Adapter& adapter) {
  const bool cpu_device = adapter.kind.type() == DeviceKind::Type::Cpu;
  return {adapter.limits.maxStorageBufferBindingSize,
          adapter.limits.maxComputeWorkgroupsPerDimension,
          adapter.limits.maxComputeWorkgroupStorageSize,
          adapter.limits.maxStorageBuffersPerShaderStage,
          shader::loop_turns_on(cpu_device),
          shader::dispatch_turns_on(cpu_device),
          shader::fill_groups_on(cpu_device)};
}

}  // namespace ember::wgpu
