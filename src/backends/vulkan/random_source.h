// The vulkan backend's random tensors: a GLSL kernel of ir/random.h's stream (Philox4x32-10), for
// f32 draws of the default distribution and Bernoulli (dropout's masks), bit for bit as every
// device draws them; what it takes and its parameters are shared with wgpu
// (backends/shader/random_passes.h), and its text, written once for both, is
// backends/shader/random_text.h's. Other distributions and dtypes are drawn on the host.
// shader::RandomKernel (backends/shader/random_kernels.h) runs it.
#pragma once

#include <string>

namespace ember::vulkan {

/// The GLSL kernel of random tensors.
std::string random_source();

}  // namespace ember::vulkan
