// The wgpu backend's convolution and pooling kernels: shader::ConvPoolKernels (the cases, words
// and dispatches, shared with vulkan) over WGSL sources. f32 only (WGSL has no f64): convolutions
// accumulate by fma in f32 as ndarray's do; average pooling and its gradient add in f32 where
// ndarray adds in double, so they are ndarray's within the rounding of a window's few additions.
#pragma once

#include "backends/shader/conv_pool_kernels.h"
#include "backends/wgpu/command_stream.h"
#include "backends/wgpu/device_pages.h"
#include "backends/wgpu/kernel_cache.h"

namespace ember::wgpu {

using ConvPoolKernels = shader::ConvPoolKernels<BufferRange>;

/// The convolution and pooling kernels of adapter, compiled by kernels and recorded into stream.
ConvPoolKernels make_conv_pool_kernels(const Adapter& adapter, KernelCache& kernels,
                                       CommandStream& stream);

}  // namespace ember::wgpu
