// The wgpu backend's program kernels (shader/program_kernels.h): fused programs and lone
// elementwise ops as the WGSL kernels of codegen/wgsl_program.h, which read the GLSL kernels'
// parameter block.
#pragma once

#include "backends/shader/program_kernels.h"
#include "backends/wgpu/kernel_runner.h"

namespace ember::wgpu {

/// The WGSL emitter: 8- and 16-bit elements packed in words (narrow outputs or-ed into zeroed
/// words), bindings rounded up to words (to whole vectors of 16 bytes for the flat kernel).
shader::ProgramEmitter wgsl_emitter();

using ProgramKernels = shader::ProgramKernels<KernelRunner>;

}  // namespace ember::wgpu
