// The vulkan backend's fused row ops on f32 (layer_norm and rms_norm, cross_entropy, their
// gradients, softmax's backward): the GLSL of backends/shader/row_passes.h's kernels, which says
// what each computes, its parameter words, bindings and dispatch (shared with wgpu). f64 (GLSL
// has no exp on doubles) and f16 keep the public functions' composites.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "backends/shader/row_passes.h"
#include "backends/vulkan/device_pages.h"
#include "backends/vulkan/kernel_runner.h"

namespace ember::vulkan {

class RowKernels {
 public:
  explicit RowKernels(const KernelRunner& runner) : runner_(runner) {}

  /// What the device allows one kernel.
  const shader::DeviceLimits& limits() const { return runner_.limits(); }
  /// Records kernel over groups workgroups, its parameter words, its tensors bound in order.
  void run(shader::RowKernel kernel, std::span<const std::byte> words,
           std::span<const BufferRange> tensors, uint32_t groups);

 private:
  KernelRunner runner_;
};

}  // namespace ember::vulkan
