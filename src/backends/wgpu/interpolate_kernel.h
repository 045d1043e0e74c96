// The wgpu backend's interpolation kernels: shader::InterpolateKernels (the cases, words and
// dispatches, shared with vulkan: shader/interpolate_passes.h) over WGSL sources, whose text is
// written once for both in shader/interpolate_text.h. f32 and f16 (WGSL has no f64; f16 read and
// written two to a u32 word, an invocation a word): coordinates and weights in f32 as ndarray's,
// the products summed in f32 where ndarray sums in double, so within the rounding of at most 16
// terms (f16 then rounded once more, to nearest even).
#pragma once

#include "backends/shader/interpolate_passes.h"
#include "backends/wgpu/device_pages.h"
#include "backends/wgpu/kernel_runner.h"

namespace ember::wgpu {

using InterpolateKernels = shader::InterpolateKernels<BufferRange>;

/// The interpolation kernels of adapter, recorded through runner.
InterpolateKernels make_interpolate_kernels(const Adapter& adapter, const KernelRunner& runner);

}  // namespace ember::wgpu
