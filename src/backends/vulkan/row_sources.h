// The vulkan backend's fused row ops on f32 (layer_norm and rms_norm, cross_entropy, their
// gradients, softmax's backward): the GLSL spelling of backends/shader/row_text.h's kernels, whose
// text is written once for both languages; backends/shader/row_passes.h says what each computes,
// its parameter words, bindings and dispatch (shared with wgpu). f64 (GLSL has no exp on doubles)
// and f16 keep the public functions' composites. shader::RowKernels (backends/shader/row_kernels.h)
// runs them.
#pragma once

#include <cstdint>
#include <string>

#include "backends/shader/row_passes.h"

namespace ember::vulkan {

/// The GLSL fused row kernels.
shader::RowSources row_sources();
/// The declaration of a tensor those kernels bind at binding.
std::string declare_row_tensor(uint32_t binding, const shader::RowBinding& tensor);

}  // namespace ember::vulkan
