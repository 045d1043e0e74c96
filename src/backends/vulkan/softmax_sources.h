// The vulkan backend's softmax kernels (shader::SoftmaxKernel, backends/shader/softmax_kernels.h,
// runs them): softmax and log-softmax of f32 along any dim: one workgroup a lane, its
// maximum and the sum of exp(x - max) through shared memory, then exp(x - max) / sum or
// x - max - log(sum) for each element (ndarray's formulas; the sum in another order, within
// rounding). f64 (GLSL has no exp on doubles) and f16 run on the host. The lanes and the
// dispatch are shared with wgpu (backends/shader/softmax_passes.h).
#pragma once

#include "backends/shader/softmax_kernels.h"

namespace ember::vulkan {

/// The GLSL softmax kernels.
shader::SoftmaxSources softmax_sources();

}  // namespace ember::vulkan
