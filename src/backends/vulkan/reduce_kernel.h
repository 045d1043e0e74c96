// The vulkan backend's sum and mean of f32 and f64 tensors, along one dim or over the whole
// tensor: one invocation per output element, adding its lane in order in double, as ndarray's
// kernel adds (so the results are ndarray's bit for bit). A device without doubles, and the other
// reductions, run on the host.
#pragma once

#include "backends/vulkan/command_stream.h"
#include "backends/vulkan/device_pages.h"
#include "backends/vulkan/kernel_cache.h"
#include "ir/ops.h"

namespace ember::vulkan {

class ReduceKernel {
 public:
  ReduceKernel(const Features& features, KernelCache& kernels, CommandStream& stream);

  /// Whether run takes reduce of x: Sum or Mean (of a lane that is not empty) on f32 or f64 (with
  /// f64 arithmetic), x within one descriptor's range.
  bool takes(const ir::Reduce& reduce, const ir::TensorMeta& x) const;
  /// Records reduce of x (contiguous) into out (its result, contiguous). takes() holds.
  void run(const ir::Reduce& reduce, const BufferRange& x, const ir::TensorMeta& x_meta,
           const BufferRange& out);

 private:
  bool float64_;
  uint32_t max_range_;
  uint32_t max_groups_;
  KernelCache& kernels_;
  CommandStream& stream_;
};

}  // namespace ember::vulkan
