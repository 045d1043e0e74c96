// The wgpu backend's cumulative sum, product, maximum and minimum along a dim: the WGSL of
// backends/shader/cumulative_scan.h's passes (one invocation a lane in order, or a long lane's
// blocks, their carries and the blocks again from their carries). Sums and products of i32 and u32
// in wrapping 32-bit integers (ndarray's, exactly); maximum and minimum of f32, i32, u32. Sums and
// products of floats run on the host: ndarray accumulates them in double, which WGSL does not have.
// shader::CumulativeKernel (backends/shader/cumulative_kernels.h) runs them.
#pragma once

#include <string>

#include "backends/shader/cumulative_scan.h"
#include "ir/ops.h"

namespace ember::wgpu {

/// The WGSL kernel of pass of op on dtype.
std::string cumulative_source(ir::CumulativeOp op, DType dtype, shader::ScanPass pass);

}  // namespace ember::wgpu
