// The wgpu backend's convolution and pooling kernels: shader::ConvPoolKernels (the cases, words
// and dispatches, shared with vulkan) over WGSL sources (their text shader/conv_pool_text.h's). f32
// only (WGSL has no f64): convolutions accumulate by fma in f32 as ndarray's do; average pooling
// and its gradient add in f32 where ndarray adds in double, so they are ndarray's within the
// rounding of a window's few additions.
#pragma once

#include <string>

#include "backends/shader/conv_pool_kernels.h"
#include "backends/wgpu/device_pages.h"
#include "backends/wgpu/kernel_runner.h"

namespace ember::wgpu {

using ConvPoolKernels = shader::ConvPoolKernels<BufferRange>;

/// The start of every convolution, pooling and interpolation kernel: the parameter block (binding
/// 0), element() (the element an invocation writes) and split() (an element's spatial position).
/// Tensors are bound read_write, as the other kernels bind them: slices of one page may be read
/// and written by one dispatch.
extern const char* const kSpatialHeader;
/// A storage buffer at binding of those kernels, an array name of elem.
std::string spatial_buffer(int binding, const std::string& elem, const std::string& name);
/// Their entry point, of workgroups of size (a WGSL attribute's list); its body follows.
std::string spatial_entry(const std::string& size);

/// What adapter's convolution, pooling and interpolation kernels can take (limits: its): f32,
/// and f16 where a kernel takes it (stored two to a word, computed in f32).
shader::SpatialLimits spatial_limits(const Adapter& adapter, const shader::DeviceLimits& limits);

/// The convolution and pooling kernels of adapter, recorded through runner.
ConvPoolKernels make_conv_pool_kernels(const Adapter& adapter, const KernelRunner& runner);

}  // namespace ember::wgpu
