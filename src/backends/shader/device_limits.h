// DeviceLimits: the limits of a device that the shader backends' kernel classes check before they
// take a case (a tensor within one binding, workgroups within one dispatch, shared memory and
// bindings within one kernel), read once from the device: vulkan's Features, wgpu's adapter
// limits (each backend's kernel_runner.h), and the loop turns one invocation may make.
#pragma once

#include <cstdint>

namespace ember::shader {

/// What the device allows one kernel.
struct DeviceLimits {
  uint64_t max_binding = 0;          ///< bytes one storage binding covers
  uint32_t max_groups = 0;           ///< workgroups of one dispatch (x)
  uint64_t max_shared_bytes = 0;     ///< shared (workgroup) memory of a workgroup
  uint32_t max_storage_buffers = 0;  ///< storage bindings of one kernel
  /// The most loop turns one invocation may make in all (loop_turns_on gives it); each kernel
  /// class counts its own turns from its geometry and leaves larger cases to the host.
  uint64_t max_loop_turns = 0;
  /// The most loop turns one dispatch may make in all (dispatch_turns_on gives it), for kernels
  /// whose work grows as a product of their tensors' sizes (the indexed updates'): past it, the
  /// host's one pass is the faster.
  uint64_t max_dispatch_turns = 0;
  /// The workgroups a kernel should spread over to fill the device (fill_groups_on gives it):
  /// a matmul whose output tiles are fewer splits its k (shader/matmul_geometry.h).
  uint64_t fill_groups = 0;
};

/// Whether a kernel of tensors storage buffers, after its parameter block's, binds within limits
/// (lavapipe allows 32: a fused program of many tensors, AdamW's over several parameters, is past
/// it and runs op by op).
constexpr bool binds_within(uint64_t tensors, const DeviceLimits& limits) {
  return tensors + 1 <= limits.max_storage_buffers;
}

/// The loop turns a CPU device lets one invocation make. Note: lavapipe (llvmpipe, Mesa's CPU
/// Vulkan device, also under wgpu-native) ends an invocation's loops after 65535 turns in all,
/// silently, so kernels stay below this, with room for a few turns of setup.
constexpr uint64_t kCpuDeviceLoopTurns = 60000;
/// The loop turns other devices (GPUs) let one invocation make: no such limit, only the
/// kernels' own arithmetic, which counts turns and indices in 32-bit integers (GLSL's and WGSL's
/// uint and int): a bound below 2^31 keeps every count, and a sum of a few of them, in range.
constexpr uint64_t kGpuLoopTurns = (uint64_t{1} << 31) - 1;

/// The loop turns one invocation may make on a device, by whether it is a CPU device.
constexpr uint64_t loop_turns_on(bool cpu_device) {
  return cpu_device ? kCpuDeviceLoopTurns : kGpuLoopTurns;
}

/// The loop turns one dispatch may make on a device, by whether it is a CPU device: a CPU
/// device's threads are the host's own, so 2^26 (some 0.1 s of lavapipe) keeps a case whose
/// host pass is faster off it; a GPU runs thousands of turns at once, and a dispatch of 2^36
/// turns of a few instructions each is some milliseconds.
constexpr uint64_t dispatch_turns_on(bool cpu_device) {
  return cpu_device ? uint64_t{1} << 26 : uint64_t{1} << 36;
}

/// The workgroups that fill a device, by whether it is a CPU device: a few for lavapipe's
/// threads; on a GPU, two for each multiprocessor of a large one (an H100 has 132), whose
/// 256-invocation workgroups then hide each other's latency.
constexpr uint64_t fill_groups_on(bool cpu_device) {
  return cpu_device ? 4 : 264;
}

}  // namespace ember::shader
