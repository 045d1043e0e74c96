// ProgramKernels: fused programs and lone elementwise ops on a Vulkan device, as the GLSL kernels
// of codegen/glsl_program.h: the emitter's verdict per program, the kernel compiled once (the
// kernel cache keys on its source), the parameter block and the dispatch.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "backends/vulkan/device_pages.h"
#include "backends/vulkan/kernel_runner.h"
#include "codegen/glsl.h"
#include "codegen/kernel_dims.h"
#include "ember/scalar.h"
#include "ember/shape.h"
#include "ir/program.h"

namespace ember::vulkan {

/// The emitter's view of a device's features.
codegen::GlslFeatures glsl_features(const Features& features);

class ProgramKernels {
 public:
  /// features: the dtypes the device's kernels hold.
  ProgramKernels(const KernelRunner& runner, const Features& features)
      : features_(glsl_features(features)), runner_(runner) {}

  /// Whether run takes program over an output of n elements whose largest tensor has bytes
  /// bytes: the emitter writes it for this device, and every tensor fits one descriptor's range.
  /// Compiles its kernel on first use (kept in program.compiled).
  bool runs(const ir::Program& program, uint64_t n, uint64_t bytes);
  /// Records program over n output elements: inputs[k] (program input k) read through dims
  /// (merged_dims of the output's and the inputs' shapes, or any strides and offsets that stay
  /// inside them: a view's), outputs[k] (program output k, contiguous), the execution's
  /// constants. runs() holds.
  void run(const ir::Program& program, std::span<const BufferRange> inputs,
           const codegen::MergedDims& dims, std::span<const BufferRange> outputs,
           std::span<const Scalar> constants, uint64_t n);

 private:
  /// program's kernel, compiled on first use; nullptr where the emitter does not write it.
  const Kernel* kernel_of(const ir::Program& program);

  codegen::GlslFeatures features_;
  KernelRunner runner_;
};

}  // namespace ember::vulkan
