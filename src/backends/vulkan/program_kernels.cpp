#include "backends/vulkan/program_kernels.h"

#include <algorithm>
#include <cstddef>
#include <memory>
#include <vector>

#include "codegen/glsl_program.h"
#include "codegen/kernel_dims.h"

namespace ember::vulkan {

codegen::GlslFeatures glsl_features(const Features& features) {
  return {features.float64, features.int64, features.storage8, features.storage16};
}

namespace {

/// A program's compiled form on this device (ir::CompiledForm; the fusion decorator's program
/// cache is the device's own).
struct Compiled {
  const Kernel* kernel = nullptr;
};

}  // namespace

const Kernel* ProgramKernels::kernel_of(const ir::Program& program) {
  const Compiled* compiled = program.compiled.get<Compiled>([&] {
    auto made = std::make_shared<Compiled>();
    if (codegen::glsl_program_refusal(program, features_).empty())
      made->kernel = &runner_.kernel(codegen::glsl_program_kernel(program, features_),
                                     program.inputs.size() + program.outputs.size());
    return made;
  });
  return compiled->kernel;
}

bool ProgramKernels::runs(const ir::Program& program, uint64_t n, uint64_t bytes) {
  // The kernels index in 32 bits, a tensor is bound as one range, and every tensor has its
  // binding.
  if (n >= (uint64_t{1} << 31) || bytes > runner_.limits().max_binding ||
      !shader::binds_within(program.inputs.size() + program.outputs.size(), runner_.limits()))
    return false;
  return kernel_of(program) != nullptr;
}

void ProgramKernels::run(const ir::Program& program, std::span<const BufferRange> inputs,
                         const codegen::MergedDims& dims, std::span<const BufferRange> outputs,
                         std::span<const Scalar> constants, uint64_t n) {
  if (n == 0) return;
  const Kernel& kernel = *kernel_of(program);
  const std::vector<uint32_t> words =
      codegen::glsl_program_parameters(program, features_, dims, n, constants);
  std::vector<BufferRange> tensors(inputs.begin(), inputs.end());
  tensors.insert(tensors.end(), outputs.begin(), outputs.end());
  constexpr uint64_t kPerGroup =
      uint64_t{codegen::kGlslWorkgroupSize} * codegen::kGlslElementsPerInvocation;
  const uint64_t groups = (n + kPerGroup - 1) / kPerGroup;
  runner_.stream().dispatch(
      kernel, std::as_bytes(std::span(words)), tensors,
      static_cast<uint32_t>(std::min<uint64_t>(groups, runner_.limits().max_groups)));
}

}  // namespace ember::vulkan
