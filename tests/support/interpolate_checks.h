// The interpolation kernels of a graphics-API device (vulkan, wgpu: lavapipe in CI) against
// ndarray, each case also checking whether it ran on the device's kernels or, declined, on the
// host (shader::HostRuns), so that the conformance rows of interpolate are known to exercise the
// kernels.
#pragma once

#include "ember/device.h"

namespace ember::test {

/// Interpolate and InterpolateGrad on device equal ndarray's within the dtype's tolerance: every
/// mode (nearest, linear, cubic), align_corners on and off, sizes and scale factors, up and down
/// sampling, 1 to 3 spatial dims, NaN and infinities in x; the cases the kernels take ran on them
/// (HostRuns unchanged), the others (a gradient with more outputs reading one input element than
/// an invocation may loop over, an empty batch) on the host. f32, and f64 and f16 where the
/// device supports them: on its kernels where f64_kernels and f16_kernels say they compute them,
/// else on the host.
void expect_interpolate_kernels_match_ndarray(const Device& device, bool f64_kernels,
                                              bool f16_kernels);

}  // namespace ember::test
