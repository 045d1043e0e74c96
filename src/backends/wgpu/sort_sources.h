// The wgpu backend's sort kernels (shader::SortKernel, backends/shader/sort_kernels.h, runs
// them): the WGSL spelling of shader/sort_text.h's kernels, a bitonic network over (key, position)
// pairs in workgroup memory, one workgroup a lane of up to 2048 elements (or a block of a longer
// lane, then merged in passes over global memory; the passes, the geometry, the order and what they
// take are shared with vulkan: backends/shader/sort_passes.h). Keys of 32 bits (f32, i32, u32),
// lanes of any length the bindings hold; the rest runs on the host.
#pragma once

#include "backends/shader/sort_passes.h"
#include "ember/dtype.h"

namespace ember::wgpu {

/// The WGSL sort kernels for keys of dtype.
shader::SortSources sort_sources(DType dtype);

}  // namespace ember::wgpu
