// The vulkan backend's fused row ops on f32 (layer_norm and rms_norm, cross_entropy, their
// gradients, softmax's backward): the GLSL of backends/shader/row_passes.h's kernels, which says
// what each computes, its parameter words, bindings and dispatch (shared with wgpu). f64 (GLSL
// has no exp on doubles) and f16 keep the public functions' composites.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "backends/shader/row_passes.h"
#include "backends/vulkan/command_stream.h"
#include "backends/vulkan/device_pages.h"
#include "backends/vulkan/kernel_cache.h"

namespace ember::vulkan {

class RowKernels {
 public:
  RowKernels(const Features& features, KernelCache& kernels, CommandStream& stream);

  /// The most bytes of a tensor one binding reaches.
  uint64_t max_binding() const { return max_range_; }
  /// The most workgroups of a dispatch.
  uint32_t max_groups() const { return max_groups_; }
  /// Records kernel over groups workgroups, its parameter words, its tensors bound in order.
  void run(shader::RowKernel kernel, std::span<const std::byte> words,
           std::span<const BufferRange> tensors, uint32_t groups);

 private:
  uint32_t max_range_;
  uint32_t max_groups_;
  KernelCache& kernels_;
  CommandStream& stream_;
};

}  // namespace ember::vulkan
