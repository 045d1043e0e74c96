// The vulkan backend's matmul: a GLSL kernel of 16 x 16 output tiles, each workgroup's rows of the
// left operand and columns of the right staged through shared memory 16 at a time, every product
// accumulated by fma in order along k (one rounding each), a batch entry per workgroup layer.
// f32 operands; a batch dim broadcast on one side is read with a batch stride of 0.
#pragma once

#include "backends/vulkan/command_stream.h"
#include "backends/vulkan/device_pages.h"
#include "backends/vulkan/kernel_cache.h"
#include "ir/ops.h"

namespace ember::vulkan {

class MatmulKernel {
 public:
  MatmulKernel(const Features& features, KernelCache& kernels, CommandStream& stream);

  /// Whether run takes the product of lhs and rhs (ir::infer's operands of a Matmul, result out):
  /// f32; each side's batch dims either the result's or all of size 1; at most 65535 batch
  /// entries and tiles along each side; every tensor within one descriptor's range.
  bool takes(const ir::TensorMeta& lhs, const ir::TensorMeta& rhs, const ir::TensorMeta& out) const;
  /// Records the product of a (lhs) and b (rhs) into c (out, contiguous). takes() holds.
  void run(const BufferRange& a, const BufferRange& b, const BufferRange& c,
           const ir::TensorMeta& lhs, const ir::TensorMeta& rhs, const ir::TensorMeta& out);

 private:
  uint32_t max_range_;
  KernelCache& kernels_;
  CommandStream& stream_;
};

}  // namespace ember::vulkan
