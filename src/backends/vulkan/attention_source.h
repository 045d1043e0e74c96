// The vulkan backend's fused attention of f32 (ir::Attention and ir::AttentionGrad): the GLSL of
// the passes of backends/shader/attention_passes.h, which holds the cases they take, their
// geometry, parameter words and order (shared with wgpu), specialised on each case's head dims,
// mask kind and causality. shader::AttentionKernel (backends/shader/attention_kernels.h) runs them.
#pragma once

#include <string>

#include "backends/shader/attention_passes.h"

namespace ember::vulkan {

/// The GLSL kernel of pass on geometry's case: its constants, then its text.
std::string attention_source(shader::AttentionPass pass, const shader::AttentionGeometry& geometry);

}  // namespace ember::vulkan
