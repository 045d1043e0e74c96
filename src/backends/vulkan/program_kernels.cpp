#include "backends/vulkan/program_kernels.h"

#include <cstdint>

#include "codegen/glsl_program.h"

namespace ember::vulkan {

shader::ProgramEmitter glsl_emitter(const Features& features) {
  return {codegen::glsl_program_refusal,
          codegen::glsl_program_kernel,
          {features.float64, features.int64, features.storage8, features.storage16},
          [](uint64_t bytes) { return bytes; },
          false,
          uint64_t{codegen::kGlslWorkgroupSize} * codegen::kGlslElementsPerInvocation};
}

}  // namespace ember::vulkan
