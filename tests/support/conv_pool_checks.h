// The convolution and pooling kernels of a graphics-API device (vulkan, wgpu: lavapipe in CI)
// against ndarray, each case also checking whether it ran on the device's kernels or, declined,
// on the host (shader::conv_pool_kernel_runs), so that the conformance rows of these ops are
// known to exercise the kernels.
#pragma once

#include "ember/device.h"
#include "ember/devices.h"

namespace ember::test {

/// Conv (both directions, bias, groups, stride, padding, dilation, 1 to 3 spatial dims, an
/// infinite weight where the padding is), ConvWeightGrad, max / average / adaptive pooling (NaN,
/// infinities, ties, ceil_mode, count_include_pad, divisor_override, i32 and i64 indices) and
/// both average gradients on device equal ndarray's (max pooling exactly, the rest within the
/// dtype's tolerance); the cases the kernels take ran on them, the others (an empty batch, a sum
/// longer than an invocation may loop over, a stride or divisor past the kernels' 32-bit
/// arithmetic) on the host. f32, and f64 too where f64_kernels (the device's kernels compute it).
void expect_conv_pool_kernels_match_ndarray(const Device& device, bool f64_kernels);
/// The same on the first device of type, in a fresh process whose EMBER_SHADER_CONV is tiled: the
/// tiled convolution kernel, which a CPU device (lavapipe) does not run otherwise.
void expect_tiled_conv_kernel_matches_ndarray(DeviceType type, bool f64_kernels);

}  // namespace ember::test
