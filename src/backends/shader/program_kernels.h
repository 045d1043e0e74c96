// ProgramKernels: fused programs and lone elementwise ops on a shader backend's device, as the
// kernels of its emitter (GLSL for vulkan: codegen/glsl_program.h; WGSL for wgpu:
// codegen/wgsl_program.h), written once over the backend's KernelRunner (kernel_runner.h): the
// emitter's verdict per program and the kernel made once (kept in the program's
// ir::CompiledForm; the kernel cache keys on its source), the parameter block (the GLSL kernels'
// words, which the WGSL kernels read too) and the dispatch, of the general kernel or, where every
// tensor is contiguous and 16-byte aligned, of the flat kernel (codegen::flat_program_runs), a
// second kernel of the program kept beside the first. Each backend gives its ProgramEmitter
// (vulkan/program_kernels.h, wgpu/program_kernels.h).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "backends/shader/device_limits.h"
#include "codegen/glsl.h"
#include "codegen/glsl_program.h"
#include "codegen/kernel_dims.h"
#include "ember/scalar.h"
#include "ir/program.h"

namespace ember::shader {

/// What a backend's program kernels differ in.
struct ProgramEmitter {
  /// Why the emitter does not write program for the device, or "" where it does.
  std::string (*refusal)(const ir::Program& program, const codegen::GlslFeatures& features);
  /// The kernel's source (refusal empty).
  std::string (*source)(const ir::Program& program, const codegen::GlslFeatures& features);
  /// The flat kernel's source (refusal empty, codegen::has_flat_program_kernel).
  std::string (*flat_source)(const ir::Program& program, const codegen::GlslFeatures& features);
  /// The dtypes the device's kernels hold (and the parameter block's double scalars).
  codegen::GlslFeatures features;
  /// The bytes the binding of a tensor of bytes covers.
  uint64_t (*bound)(uint64_t bytes);
  /// The bytes the flat kernel's binding of a tensor of bytes covers (the device's pages have
  /// room for them).
  uint64_t (*flat_bound)(uint64_t bytes);
  /// Whether outputs of 1 or 2 bytes are or-ed into their words, which must then start at zero.
  bool ors_narrow_outputs = false;
  /// The elements one workgroup takes in a turn of the kernels' loop.
  uint64_t elements_per_group = 0;
};

/// Runner: a backend's KernelRunner.
template <typename Runner>
class ProgramKernels {
 public:
  using Range = typename Runner::Range;

  ProgramKernels(const Runner& runner, ProgramEmitter emitter)
      : runner_(runner), emitter_(std::move(emitter)) {}

  /// Whether run takes program over an output of n elements whose largest tensor has bytes
  /// bytes: the emitter writes it for this device, and every tensor fits one binding. Makes its
  /// kernel on first use (kept in program.compiled).
  bool runs(const ir::Program& program, uint64_t n, uint64_t bytes) {
    // The kernels index in 32 bits, a tensor is bound as one range, and every tensor has its
    // binding.
    if (n >= (uint64_t{1} << 31) || emitter_.bound(bytes) > runner_.limits().max_binding ||
        !binds_within(program.inputs.size() + program.outputs.size(), runner_.limits()))
      return false;
    return kernel_of(program) != nullptr;
  }

  /// Records program over n output elements: inputs[k] (program input k) read through dims
  /// (merged_dims of the output's and the inputs' shapes, or any strides and offsets that stay
  /// inside them: a view's), outputs[k] (program output k, contiguous), the execution's
  /// constants. runs() holds.
  void run(const ir::Program& program, std::span<const Range> inputs,
           const codegen::MergedDims& dims, std::span<const Range> outputs,
           std::span<const Scalar> constants, uint64_t n) {
    if (n == 0) return;
    std::vector<Range> tensors(inputs.begin(), inputs.end());
    tensors.insert(tensors.end(), outputs.begin(), outputs.end());
    const bool flat = runs_flat(program, dims, tensors);
    if (flat)
      for (Range& range : tensors)
        range.bytes = emitter_.flat_bound(range.bytes);
    const Kernel& kernel = flat ? flat_kernel_of(program) : *kernel_of(program);
    const std::vector<uint32_t> words =
        codegen::glsl_program_parameters(program, emitter_.features, dims, n, constants);
    if (emitter_.ors_narrow_outputs)
      for (std::size_t k = 0; k < outputs.size(); ++k)
        if (dtype_size(program.instructions[program.outputs[k]].dtype) < 4)
          runner_.stream().fill_zero(outputs[k]);
    // Either kernel takes a turn of elements_per_group elements a workgroup.
    const uint64_t groups = (n + emitter_.elements_per_group - 1) / emitter_.elements_per_group;
    runner_.stream().dispatch(
        kernel, std::as_bytes(std::span(words)), tensors,
        static_cast<uint32_t>(std::min<uint64_t>(groups, runner_.limits().max_groups)));
  }

 private:
  using Kernel =
      std::remove_cvref_t<decltype(std::declval<const Runner&>().kernel(std::string(), 0))>;
  /// A program's compiled form on this device (ir::CompiledForm; the fusion decorator's program
  /// cache is the device's own).
  struct Compiled {
    const Kernel* kernel = nullptr;
    /// The flat kernel, made on the program's first flat run: a program only ever run strided
    /// (a view's copy, a broadcast over rows) never compiles it.
    mutable std::once_flag flat_made;
    mutable const Kernel* flat = nullptr;
  };

  /// Whether the flat kernel runs program over dims on tensors (the inputs', then the outputs'
  /// ranges): codegen::flat_program_runs, every binding at a multiple of 16 bytes (its vectors'
  /// alignment; the pools' slices are 64-byte aligned) and within one binding's range once padded.
  bool runs_flat(const ir::Program& program, const codegen::MergedDims& dims,
                 std::span<const Range> tensors) const {
    if (!codegen::flat_program_runs(program, dims)) return false;
    return std::all_of(tensors.begin(), tensors.end(), [&](const Range& range) {
      return range.offset % 16 == 0 &&
             emitter_.flat_bound(range.bytes) <= runner_.limits().max_binding;
    });
  }

  /// program's flat kernel, made on first use (the emitter writes program, runs_flat holds).
  const Kernel& flat_kernel_of(const ir::Program& program) {
    const Compiled& compiled = compiled_of(program);
    std::call_once(compiled.flat_made, [&] {
      compiled.flat = &runner_.kernel(emitter_.flat_source(program, emitter_.features),
                                      program.inputs.size() + program.outputs.size());
    });
    return *compiled.flat;
  }

  /// program's kernel, made on first use; nullptr where the emitter does not write it.
  const Kernel* kernel_of(const ir::Program& program) { return compiled_of(program).kernel; }

  /// program's compiled form, its general kernel made on first use.
  const Compiled& compiled_of(const ir::Program& program) {
    return *program.compiled.get<Compiled>([&] {
      auto made = std::make_shared<Compiled>();
      if (emitter_.refusal(program, emitter_.features).empty())
        made->kernel = &runner_.kernel(emitter_.source(program, emitter_.features),
                                       program.inputs.size() + program.outputs.size());
      return made;
    });
  }

  Runner runner_;
  ProgramEmitter emitter_;
};

}  // namespace ember::shader
