// The vulkan backend's convolution and pooling kernels: shader::ConvPoolKernels (the cases, words
// and dispatches, shared with wgpu) over GLSL sources (their text shader/conv_pool_text.h's). f32,
// and f64 where the device has shaderFloat64; convolutions accumulate by fma in x's dtype
// (ndarray's f32 sums are float too), average pooling and its gradient in double where the device
// has it (ndarray's are double), so that the average of a window and its gradient are ndarray's bit
// for bit there.
#pragma once

#include <string>

#include "backends/shader/conv_pool_kernels.h"
#include "backends/vulkan/device_pages.h"
#include "backends/vulkan/kernel_runner.h"
#include "backends/vulkan/vulkan_context.h"

namespace ember::vulkan {

using ConvPoolKernels = shader::ConvPoolKernels<BufferRange>;

/// The start of every convolution, pooling and interpolation kernel: the version, extensions
/// (#extension lines, which must come first), T the tensors' type, A the accumulator's, the
/// workgroup, the parameter block (binding 0), element() (the element an invocation writes) and
/// split() (an element's spatial position).
std::string spatial_header(const std::string& type, const std::string& accumulator,
                           const std::string& workgroup = "local_size_x = 256",
                           const std::string& extensions = "");
/// A storage buffer at binding of those kernels, an array name[] of elem.
std::string spatial_buffer(int binding, const std::string& access, const std::string& elem,
                           const std::string& name);

/// What physical's convolution, pooling and interpolation kernels can take (limits: its).
shader::SpatialLimits spatial_limits(const PhysicalDevice& physical,
                                     const shader::DeviceLimits& limits);

/// The convolution and pooling kernels of physical, recorded through runner.
ConvPoolKernels make_conv_pool_kernels(const PhysicalDevice& physical, const KernelRunner& runner);

}  // namespace ember::vulkan
