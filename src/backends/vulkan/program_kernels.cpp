#include "backends/vulkan/program_kernels.h"

#include <cstdint>

#include "codegen/glsl_program.h"

namespace ember::vulkan {

shader::ProgramEmitter glsl_emitter(const Features& features) {
  // The flat kernel loads and stores the last, partial vector lane by lane, and no bounds check
  // clamps its index: its bindings are the tensors' bytes too.
  const auto exact = [](uint64_t bytes) { return bytes; };
  return {codegen::glsl_program_refusal,
          codegen::glsl_program_kernel,
          codegen::glsl_flat_program_kernel,
          {features.float64, features.int64, features.storage8, features.storage16},
          exact,
          exact,
          false,
          uint64_t{codegen::kGlslWorkgroupSize} * codegen::kGlslElementsPerInvocation};
}

}  // namespace ember::vulkan
