// The vulkan backend's interpolation kernels: shader::InterpolateKernels (the cases, words and
// dispatches, shared with wgpu: shader/interpolate_passes.h) over GLSL sources, whose text is
// written once for both in shader/interpolate_text.h. f32, f64 where the device has
// shaderFloat64, f16 where it has shaderFloat16 and 16-bit storage; coordinates and weights in
// ndarray's compute type (f32 for f16; its operations in its order, each rounded on its own), the
// products summed in double where the device has it (as ndarray sums them) and rounded once to
// x's dtype.
#pragma once

#include "backends/shader/interpolate_passes.h"
#include "backends/vulkan/device_pages.h"
#include "backends/vulkan/kernel_runner.h"
#include "backends/vulkan/vulkan_context.h"

namespace ember::vulkan {

using InterpolateKernels = shader::InterpolateKernels<BufferRange>;

/// The interpolation kernels of physical, recorded through runner.
InterpolateKernels make_interpolate_kernels(const PhysicalDevice& physical,
                                            const KernelRunner& runner);

}  // namespace ember::vulkan
