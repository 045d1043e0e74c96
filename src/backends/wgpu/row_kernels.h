// The wgpu backend's fused row ops on f32 (layer_norm and rms_norm, cross_entropy, their
// gradients, softmax's backward): the WGSL of backends/shader/row_passes.h's kernels, which says
// what each computes, its parameter words, bindings and dispatch (shared with vulkan). f64 (WGSL
// has no doubles) and f16 keep the public functions' composites.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "backends/shader/row_passes.h"
#include "backends/wgpu/command_stream.h"
#include "backends/wgpu/device_pages.h"
#include "backends/wgpu/kernel_cache.h"

namespace ember::wgpu {

class RowKernels {
 public:
  RowKernels(const Adapter& adapter, KernelCache& kernels, CommandStream& stream);

  /// The most bytes of a tensor one binding reaches.
  uint64_t max_binding() const { return max_binding_; }
  /// The most workgroups of a dispatch.
  uint32_t max_groups() const { return max_groups_; }
  /// Records kernel over groups workgroups, its parameter words, its tensors bound in order.
  void run(shader::RowKernel kernel, std::span<const std::byte> words,
           std::span<const BufferRange> tensors, uint32_t groups);

 private:
  uint64_t max_binding_;
  uint32_t max_groups_;
  KernelCache& kernels_;
  CommandStream& stream_;
};

}  // namespace ember::wgpu
