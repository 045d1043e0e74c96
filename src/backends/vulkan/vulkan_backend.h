// The vulkan backend (docs/backends/vulkan.md): one Vulkan device (a GPU, or Mesa's lavapipe on
// the CPU), chosen by DeviceKind. Elementwise ops and fused programs run as GLSL compute kernels
// written from the formulas (src/codegen/glsl_program.h) and compiled by shaderc; matmul runs a
// tiled kernel of its own (matmul_kernel.h); reshape shares its input's buffer; creation, cat,
// slice_assign and indexing run index-copy kernels (index_copy_sources.h), the cumulative ops a
// scan (cumulative_sources.h); every other op runs on the host through ndarray's kernels (copies
// both ways) until it has a kernel. Memory
// comes from the sliced pools over device pages; every op is recorded into the device's one
// command stream.
#pragma once

#include <memory>

#include "backends/backend.h"
#include "backends/vulkan/vulkan_context.h"

namespace ember::vulkan {

/// The backend of physical (one of physical_devices()), named name ("vulkan:cpu"), behind the
/// fusion decorator. Throws ExecutionError when the device cannot be made.
std::unique_ptr<backend::Backend> make_vulkan_backend(const PhysicalDevice& physical,
                                                      const std::string& name);

/// Whether a device with these features computes in dtype: f32, the integer dtypes and Bool
/// always (the kernels take those they have storage for, the host the others); f16 with
/// shaderFloat16 and 16-bit storage; f64 with shaderFloat64; bf16 never (no device here offers
/// bf16 arithmetic: SPV_KHR_bfloat16 allows conversions only).
bool computes_in(const Features& features, DType dtype);

}  // namespace ember::vulkan
