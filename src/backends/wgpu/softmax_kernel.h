// The wgpu backend's softmax and log-softmax of f32 along any dim: one workgroup a lane, its
// maximum and the sum of exp(x - max) through workgroup memory, then exp(x - max) / sum or
// x - max - log(sum) for each element (ndarray's formulas; the sum in another order, within
// rounding). The other dtypes run on the host. The lanes and the dispatch are shared with
// vulkan (backends/shader/softmax_passes.h).
#pragma once

#include <cstdint>

#include "backends/wgpu/command_stream.h"
#include "backends/wgpu/device_pages.h"
#include "backends/wgpu/kernel_cache.h"
#include "ir/ops.h"

namespace ember::wgpu {

class SoftmaxKernel {
 public:
  SoftmaxKernel(const Adapter& adapter, KernelCache& kernels, CommandStream& stream);

  /// Whether run takes softmax of x: f32, what shader::softmax_passes_take takes.
  bool takes(const ir::Softmax& softmax, const ir::TensorMeta& x) const;
  /// Records softmax of x (contiguous) into out (x's shape, contiguous). takes() holds.
  void run(const ir::Softmax& softmax, const BufferRange& x, const ir::TensorMeta& x_meta,
           const BufferRange& out);

 private:
  uint64_t max_binding_;
  uint32_t max_groups_;
  KernelCache& kernels_;
  CommandStream& stream_;
};

}  // namespace ember::wgpu
