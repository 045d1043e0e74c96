// The vulkan backend's cumulative sum, product, maximum and minimum along a dim: the GLSL of
// backends/shader/cumulative_scan.h's passes (one invocation a lane in order, or a long lane's
// blocks, their carries and the blocks again from their carries). Sums and products of f32 and f64
// accumulate in double, as ndarray's (where the device has doubles), of i32 and u32 in wrapping
// 32-bit integers; maximum and minimum of f32, f64, i32, u32. The rest: the host.
// shader::CumulativeKernel (backends/shader/cumulative_kernels.h) runs them.
#pragma once

#include <string>

#include "backends/shader/cumulative_scan.h"
#include "ir/ops.h"

namespace ember::vulkan {

/// The GLSL kernel of pass of op on dtype.
std::string cumulative_source(ir::CumulativeOp op, DType dtype, shader::ScanPass pass);

}  // namespace ember::vulkan
