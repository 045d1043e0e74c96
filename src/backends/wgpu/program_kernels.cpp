#include "backends/wgpu/program_kernels.h"

#include <cstdint>
#include <string>

#include "backends/wgpu/device_pages.h"
#include "codegen/wgsl_program.h"

namespace ember::wgpu {

shader::ProgramEmitter wgsl_emitter() {
  // The parameter block's features only decide its double scalars, which no WGSL kernel has.
  return {[](const ir::Program& program, const codegen::GlslFeatures& /*features*/) {
            return codegen::wgsl_program_refusal(program);
          },
          [](const ir::Program& program, const codegen::GlslFeatures& /*features*/) {
            return codegen::wgsl_program_kernel(program);
          },
          [](const ir::Program& program, const codegen::GlslFeatures& /*features*/) {
            return codegen::wgsl_flat_program_kernel(program);
          },
          codegen::GlslFeatures{},
          padded,
          vector_padded,
          true,
          uint64_t{codegen::kWgslWorkgroupSize} * codegen::kWgslElementsPerInvocation};
}

}  // namespace ember::wgpu
