// DeviceLimits: the limits of a device that the shader backends' kernel classes check before they
// take a case (a tensor within one binding, workgroups within one dispatch, shared memory and
// bindings within one kernel), read once from the device: vulkan's Features, wgpu's adapter
// limits (each backend's kernel_runner.h).
#pragma once

#include <cstdint>

namespace ember::shader {

/// What the device allows one kernel.
struct DeviceLimits {
  uint64_t max_binding = 0;          ///< bytes one storage binding covers
  uint32_t max_groups = 0;           ///< workgroups of one dispatch (x)
  uint64_t max_shared_bytes = 0;     ///< shared (workgroup) memory of a workgroup
  uint32_t max_storage_buffers = 0;  ///< storage bindings of one kernel
};

}  // namespace ember::shader
