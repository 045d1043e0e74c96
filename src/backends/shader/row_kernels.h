// RowKernels: the shader backends' fused row ops (layer_norm, rms_norm, cross_entropy, their
// gradients, softmax's backward: row_passes.h's kernels, words and passes), written once over a
// backend's KernelRunner (kernel_runner.h) and its kernel sources (GLSL for vulkan, WGSL for
// wgpu: each backend's row_sources.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "backends/shader/device_limits.h"
#include "backends/shader/row_passes.h"

namespace ember::shader {

/// Runner: a backend's KernelRunner.
template <typename Runner>
class RowKernels {
 public:
  using Range = typename Runner::Range;
  /// How the backend's language declares a tensor a kernel binds at binding (1, 2, ...).
  using Declare = std::string (*)(uint32_t binding, const RowBinding& tensor);

  RowKernels(const Runner& runner, const RowSources& sources, Declare declare)
      : runner_(runner), sources_(sources), declare_(declare) {}

  /// What the device allows one kernel.
  const DeviceLimits& limits() const { return runner_.limits(); }
  /// Records kernel over groups workgroups, its parameter words, its tensors bound in order.
  void run(RowKernel kernel, std::span<const std::byte> words, std::span<const Range> tensors,
           uint32_t groups) {
    runner_.dispatch(row_kernel_source(kernel, sources_, declare_), words, tensors, groups);
  }

 private:
  Runner runner_;
  RowSources sources_;
  Declare declare_;
};

}  // namespace ember::shader
