// The wgpu backend's fused attention of f32 (ir::Attention and ir::AttentionGrad): the WGSL of
// the passes of backends/shader/attention_passes.h, which holds the cases they take, their
// geometry, parameter words and order (shared with vulkan), specialised on each case's head dims,
// mask kind and causality.
#pragma once

#include <cstdint>
#include <span>

#include "backends/shader/attention_passes.h"
#include "backends/wgpu/device_pages.h"
#include "backends/wgpu/kernel_runner.h"

namespace ember::wgpu {

class AttentionKernel {
 public:
  explicit AttentionKernel(const KernelRunner& runner) : runner_(runner) {}

  /// The device's limits, for shader::attention_passes_take.
  const shader::DeviceLimits& limits() const { return runner_.limits(); }
  /// Records pass over groups workgroups on geometry's case, tensors bound in the order
  /// shader::record_attention_forward and record_attention_backward give.
  void dispatch(shader::AttentionPass pass, const shader::AttentionGeometry& geometry,
                std::span<const BufferRange> tensors, uint32_t groups);

 private:
  KernelRunner runner_;
};

}  // namespace ember::wgpu
