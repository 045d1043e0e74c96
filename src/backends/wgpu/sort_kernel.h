// The wgpu backend's stable sort along one dim: a WGSL kernel of one workgroup a lane, a bitonic
// network over (key, position) pairs in workgroup memory (the geometry, the order and what it
// takes are shared with vulkan: backends/shader/sort_passes.h). Keys of 32 bits (f32, i32, u32),
// lanes of up to 2048 elements; the rest runs on the host.
#pragma once

#include <cstdint>

#include "backends/wgpu/command_stream.h"
#include "backends/wgpu/device_pages.h"
#include "backends/wgpu/kernel_cache.h"
#include "ir/ops.h"

namespace ember::wgpu {

class SortKernel {
 public:
  SortKernel(const Adapter& adapter, KernelCache& kernels, CommandStream& stream);

  /// Whether run takes sort of x (shader::sort_kernels_take on this device).
  bool takes(const ir::Sort& sort, const ir::TensorMeta& x) const;
  /// Records sort of x (contiguous) into values and positions (its outputs, contiguous). takes()
  /// holds.
  void run(const ir::Sort& sort, const BufferRange& x, const ir::TensorMeta& x_meta,
           const BufferRange& values, const BufferRange& positions);

 private:
  uint64_t max_binding_;
  uint32_t max_groups_;
  KernelCache& kernels_;
  CommandStream& stream_;
};

}  // namespace ember::wgpu
