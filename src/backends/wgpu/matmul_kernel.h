// MatmulKernel: f32 matmul on a WebGPU device, a WGSL kernel of 16 x 16 output tiles through
// workgroup memory, each product accumulated by fma in order along k (as the vulkan backend's).
#pragma once

#include "backends/wgpu/command_stream.h"
#include "backends/wgpu/device_pages.h"
#include "backends/wgpu/kernel_cache.h"
#include "ir/program.h"

namespace ember::wgpu {

class MatmulKernel {
 public:
  MatmulKernel(const Adapter& adapter, KernelCache& kernels, CommandStream& stream);

  /// Whether run takes lhs @ rhs -> out: f32, each side's batch dims out's or absent, every
  /// tensor within one binding, the grid within the dispatch limits.
  bool takes(const ir::TensorMeta& lhs, const ir::TensorMeta& rhs, const ir::TensorMeta& out) const;
  /// Records c = a @ b (takes holds).
  void run(const BufferRange& a, const BufferRange& b, const BufferRange& c,
           const ir::TensorMeta& lhs, const ir::TensorMeta& rhs, const ir::TensorMeta& out);

 private:
  uint64_t max_binding_;
  uint64_t max_groups_;
  KernelCache& kernels_;
  CommandStream& stream_;
};

}  // namespace ember::wgpu
