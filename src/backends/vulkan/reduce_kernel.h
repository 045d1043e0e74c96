// The vulkan backend's sum and mean of f32 and f64 tensors, along one dim or over the whole
// tensor, in two passes: each chunk of 4096 elements of a lane added in order in double by one
// invocation, then each lane's chunks in order (lavapipe ends an invocation's loops after 65535
// turns). A lane of up to 4096 elements is so added as ndarray adds it, and its sum is ndarray's
// bit for bit; longer ones differ by the rounding of the chunks' sums. A device without doubles,
// and the other reductions, run on the host. The lanes, chunks and the two dispatches are shared
// with wgpu (backends/shader/reduce_passes.h).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "backends/vulkan/command_stream.h"
#include "backends/vulkan/device_pages.h"
#include "backends/vulkan/kernel_cache.h"
#include "ir/ops.h"

namespace ember::vulkan {

class ReduceKernel {
 public:
  /// scratch(bytes, &range) gives a device buffer of bytes (range: where it lies), held while
  /// the returned pointer lives: the partial sums between the passes.
  ReduceKernel(const Features& features, KernelCache& kernels, CommandStream& stream,
               std::function<std::shared_ptr<const void>(uint64_t, BufferRange*)> scratch);

  /// Whether run takes reduce of x: Sum or Mean (of a lane that is not empty) on f32 or f64 (with
  /// f64 arithmetic), x and the partial sums within one descriptor's range, lanes of at most
  /// 2^26 elements.
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
  std::function<std::shared_ptr<const void>(uint64_t, BufferRange*)> scratch_;
};

}  // namespace ember::vulkan
