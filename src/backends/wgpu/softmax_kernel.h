// The wgpu backend's softmax and log-softmax of f32 along any dim: one workgroup a lane, its
// maximum and the sum of exp(x - max) through workgroup memory, then exp(x - max) / sum or
// x - max - log(sum) for each element (ndarray's formulas; the sum in another order, within
// rounding). The other dtypes run on the host. The lanes and the dispatch are shared with
// vulkan (backends/shader/softmax_passes.h).
#pragma once

#include <cstdint>

#include "backends/wgpu/device_pages.h"
#include "backends/wgpu/kernel_runner.h"
#include "ir/ops.h"

namespace ember::wgpu {

class SoftmaxKernel {
 public:
  explicit SoftmaxKernel(const KernelRunner& runner) : runner_(runner) {}

  /// Whether run takes softmax of x: f32, what shader::softmax_passes_take takes.
  bool takes(const ir::Softmax& softmax, const ir::TensorMeta& x) const;
  /// Records softmax of x (contiguous) into out (x's shape, contiguous). takes() holds.
  void run(const ir::Softmax& softmax, const BufferRange& x, const ir::TensorMeta& x_meta,
           const BufferRange& out);

 private:
  KernelRunner runner_;
};

}  // namespace ember::wgpu
