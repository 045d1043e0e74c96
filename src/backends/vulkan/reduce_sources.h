// The vulkan backend's reductions along one dim or over the whole tensor, in two passes: each chunk
// of a lane (chunk c of C: its elements c, c + C, ...; up to 4096, fewer where few lanes would
// leave the device idle) reduced in order in double by one invocation, then each lane's chunks in
// order (lavapipe ends an invocation's loops after 65535 turns). Sum, Mean, Prod and Var (ndarray's
// two passes a chunk, then Chan's merge of the chunks) of f32 and f64; Max, Min, ArgMax, ArgMin
// (the first extreme, the first NaN winning, as ndarray) of those and i32, u32; Any and All of
// those and Bool. A lane of one chunk is ndarray's result bit for bit; longer ones differ by the
// rounding of the chunks' (max, min and their indices, any and all: exact). A device without
// doubles, and the other dtypes, run on the host. The kernels are the GLSL spelling of
// backends/shader/reduce_text.h's, whose text is written once for both languages where they are
// alike; the lanes, chunks and the two dispatches are shared with wgpu
// (backends/shader/reduce_passes.h). shader::ReduceKernel (backends/shader/reduce_kernels.h) runs
// them.
#pragma once

#include "backends/shader/reduce_kernels.h"
#include "backends/vulkan/vulkan_context.h"

namespace ember::vulkan {

/// The GLSL reduction kernels of a device of features (which dtypes they compute).
shader::ReduceSources reduce_sources(const Features& features);

}  // namespace ember::vulkan
