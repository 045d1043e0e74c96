// AttentionKernel: the shader backends' fused attention of f32 and its backward
// (attention_passes.h's cases, geometry, words and passes), written once over a backend's
// KernelRunner (kernel_runner.h) and its kernel source (GLSL for vulkan, WGSL for wgpu: each
// backend's attention_source.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "backends/shader/attention_passes.h"
#include "backends/shader/device_limits.h"

namespace ember::shader {

/// Runner: a backend's KernelRunner.
template <typename Runner>
class AttentionKernel {
 public:
  using Range = typename Runner::Range;
  /// The backend's kernel of a pass, specialised on a case's geometry.
  using Source = std::string (*)(AttentionPass, const AttentionGeometry&);

  AttentionKernel(const Runner& runner, Source source) : runner_(runner), source_(source) {}

  /// The device's limits, for attention_passes_take.
  const DeviceLimits& limits() const { return runner_.limits(); }
  /// Records pass over groups workgroups on geometry's case, tensors bound in the order
  /// record_attention_forward and record_attention_backward give.
  void dispatch(AttentionPass pass, const AttentionGeometry& geometry,
                std::span<const Range> tensors, uint32_t groups) {
    const std::vector<uint32_t> words = geometry.words();
    runner_.dispatch(source_(pass, geometry), std::as_bytes(std::span(words)), tensors, groups);
  }

 private:
  Runner runner_;
  Source source_;
};

}  // namespace ember::shader
