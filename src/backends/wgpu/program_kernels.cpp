#include "backends/wgpu/program_kernels.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "codegen/glsl_program.h"
#include "codegen/wgsl_program.h"

namespace ember::wgpu {
namespace {

/// A program's compiled form on this device (ir::CompiledForm).
struct Compiled {
  const Kernel* kernel = nullptr;
};

}  // namespace

const Kernel* ProgramKernels::kernel_of(const ir::Program& program) {
  const Compiled* compiled = program.compiled.get<Compiled>([&] {
    auto made = std::make_shared<Compiled>();
    if (codegen::wgsl_program_refusal(program).empty())
      made->kernel = &runner_.kernel(codegen::wgsl_program_kernel(program),
                                     program.inputs.size() + program.outputs.size());
    return made;
  });
  return compiled->kernel;
}

bool ProgramKernels::runs(const ir::Program& program, uint64_t n, uint64_t bytes) {
  // The kernels index in 32 bits, a tensor is bound as one range, and every tensor has its
  // binding.
  if (n >= (uint64_t{1} << 31) || padded(bytes) > runner_.limits().max_binding ||
      !shader::binds_within(program.inputs.size() + program.outputs.size(), runner_.limits()))
    return false;
  return kernel_of(program) != nullptr;
}

void ProgramKernels::run(const ir::Program& program, std::span<const BufferRange> inputs,
                         const codegen::MergedDims& dims, std::span<const BufferRange> outputs,
                         std::span<const Scalar> constants, uint64_t n) {
  if (n == 0) return;
  const Kernel& kernel = *kernel_of(program);
  // The parameter block is the GLSL kernels' (wgsl_program.h); the features only decide its
  // double scalars, which no WGSL kernel has.
  const std::vector<uint32_t> words =
      codegen::glsl_program_parameters(program, codegen::GlslFeatures{}, dims, n, constants);
  // Elements of 1 or 2 bytes are or-ed into their words: the words start at zero.
  for (std::size_t k = 0; k < outputs.size(); ++k)
    if (dtype_size(program.instructions[program.outputs[k]].dtype) < 4)
      runner_.stream().fill_zero(outputs[k]);
  std::vector<BufferRange> tensors(inputs.begin(), inputs.end());
  tensors.insert(tensors.end(), outputs.begin(), outputs.end());
  constexpr uint64_t kPerGroup =
      uint64_t{codegen::kWgslWorkgroupSize} * codegen::kWgslElementsPerInvocation;
  const uint64_t groups = (n + kPerGroup - 1) / kPerGroup;
  runner_.stream().dispatch(
      kernel, std::as_bytes(std::span(words)), tensors,
      static_cast<uint32_t>(std::min<uint64_t>(groups, runner_.limits().max_groups)));
}

}  // namespace ember::wgpu
