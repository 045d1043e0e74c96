// The wgpu backend (docs/backends/wgpu.md): one WebGPU device through wgpu-native (a GPU, or
// Mesa's lavapipe on the CPU under its Vulkan), chosen by DeviceKind. Elementwise ops and fused
// programs run as WGSL kernels written from the formulas (src/codegen/wgsl_program.h); f32
// matmul runs a tiled kernel of its own (matmul_kernel.h); reshape shares its input's buffer;
// permute, flip, expand and slice are copies by the program kernels; creation, cat, slice_assign
// and indexing run index-copy kernels (index_copy_sources.h), the cumulative ops a scan
// (cumulative_sources.h); every other op runs on the host through ndarray's kernels (copies both
// ways) until it has a kernel. Memory comes from the
// sliced pools over device pages; every op is recorded into the device's one command stream.
#pragma once

#include <memory>
#include <string>

#include "backends/backend.h"
#include "backends/wgpu/wgpu_context.h"

namespace ember::wgpu {

/// The backend of adapter (one of adapters()), named name ("wgpu:cpu"), behind the fusion
/// decorator. Throws ExecutionError when the device cannot be made.
std::unique_ptr<backend::Backend> make_wgpu_backend(const Adapter& adapter,
                                                    const std::string& name);

/// Whether the backend computes in dtype: f32, f16 (in f32, rounded after each instruction: no
/// shader-f16 needed), the integer dtypes of up to 32 bits and Bool in its kernels; i64 and u64
/// and f64 stored and computed on the host, exact (WGSL has no 64-bit type); bf16 never.
bool computes_in(DType dtype);

}  // namespace ember::wgpu
