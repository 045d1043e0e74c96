// The vulkan backend's stable sort along one dim: a GLSL kernel of one workgroup a lane, a bitonic
// network over (key, position) pairs in shared memory (the geometry, the order and what it takes
// are shared with wgpu: backends/shader/sort_passes.h). Keys of 32 bits (f32, i32, u32), lanes of
// up to 2048 elements; the rest runs on the host.
#pragma once

#include <cstdint>

#include "backends/vulkan/command_stream.h"
#include "backends/vulkan/device_pages.h"
#include "backends/vulkan/kernel_cache.h"
#include "ir/ops.h"

namespace ember::vulkan {

class SortKernel {
 public:
  SortKernel(const Features& features, KernelCache& kernels, CommandStream& stream);

  /// Whether run takes sort of x (shader::sort_kernels_take on this device).
  bool takes(const ir::Sort& sort, const ir::TensorMeta& x) const;
  /// Records sort of x (contiguous) into values and positions (its outputs, contiguous). takes()
  /// holds.
  void run(const ir::Sort& sort, const BufferRange& x, const ir::TensorMeta& x_meta,
           const BufferRange& values, const BufferRange& positions);

 private:
  uint32_t max_range_;
  uint32_t max_groups_;
  KernelCache& kernels_;
  CommandStream& stream_;
};

}  // namespace ember::vulkan
