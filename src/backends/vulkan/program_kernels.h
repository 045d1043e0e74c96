// The vulkan backend's program kernels (shader/program_kernels.h): fused programs and lone
// elementwise ops as the GLSL kernels of codegen/glsl_program.h, for the dtypes the device's
// features hold.
#pragma once

#include "backends/shader/program_kernels.h"
#include "backends/vulkan/kernel_runner.h"
#include "backends/vulkan/vulkan_context.h"

namespace ember::vulkan {

/// The GLSL emitter on a device of features.
shader::ProgramEmitter glsl_emitter(const Features& features);

using ProgramKernels = shader::ProgramKernels<KernelRunner>;

}  // namespace ember::vulkan
