// ProgramKernels: fused programs and lone elementwise ops on a WebGPU device, as the WGSL kernels
// of codegen/wgsl_program.h: the emitter's verdict per program, the kernel made once (the kernel
// cache keys on its source), the parameter block (the GLSL kernels' layout) and the dispatch.
#pragma once

#include <cstdint>
#include <span>

#include "backends/wgpu/device_pages.h"
#include "backends/wgpu/kernel_runner.h"
#include "codegen/kernel_dims.h"
#include "ember/scalar.h"
#include "ember/shape.h"
#include "ir/program.h"

namespace ember::wgpu {

class ProgramKernels {
 public:
  explicit ProgramKernels(const KernelRunner& runner) : runner_(runner) {}

  /// Whether run takes program over an output of n elements whose largest tensor has bytes
  /// bytes: the emitter writes it, and every tensor fits one binding. Makes its kernel on first
  /// use (kept in program.compiled).
  bool runs(const ir::Program& program, uint64_t n, uint64_t bytes);
  /// Records program over n output elements whose inputs are read through dims (merged_dims of
  /// the output's and the inputs' shapes, or a view's strides and offsets); outputs contiguous.
  void run(const ir::Program& program, std::span<const BufferRange> inputs,
           const codegen::MergedDims& dims, std::span<const BufferRange> outputs,
           std::span<const Scalar> constants, uint64_t n);

 private:
  const Kernel* kernel_of(const ir::Program& program);

  KernelRunner runner_;
};

}  // namespace ember::wgpu
