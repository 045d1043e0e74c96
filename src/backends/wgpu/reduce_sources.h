// The wgpu backend's reductions along one dim or over the whole tensor, in two passes: each chunk
// of a lane (chunk c of C: its elements c, c + C, ...; up to 4096, fewer where few lanes would
// leave the device idle) reduced in order by one invocation, then each lane's chunks in order
// (lavapipe ends an invocation's loops after 65535 turns). Sum, Mean, Prod and Var of f32: WGSL has
// no double to add in as ndarray does, so sums carry each addition's rounding error along
// (Neumaier's compensated sum, a second f32) and Var merges the chunks' means and squared
// deviations (Chan et al.): within about one f32 rounding of ndarray's, not bit for bit. Max, Min,
// ArgMax, ArgMin (the first extreme, the first NaN winning, as ndarray) of f32, i32, u32 and Any,
// All of those and Bool: exact. The other dtypes run on the host. The WGSL spelling of
// backends/shader/reduce_text.h's kernels, whose text is written once for both languages where
// they are alike; the lanes, chunks and the two dispatches are shared with vulkan
// (backends/shader/reduce_passes.h). shader::ReduceKernel (backends/shader/reduce_kernels.h) runs
// them.
#pragma once

#include "backends/shader/reduce_kernels.h"

namespace ember::wgpu {

/// The WGSL reduction kernels.
shader::ReduceSources reduce_sources();

}  // namespace ember::wgpu
