// The wgpu backend's sum and mean of f32 tensors, along one dim or over the whole tensor, in two
// passes: each chunk of 4096 elements of a lane added in order by one invocation, then each
// lane's chunks in order (lavapipe ends an invocation's loops after 65535 turns). WGSL has no
// double to add in as ndarray does, so both passes carry the rounding error of each addition
// along (Neumaier's compensated sum, a second f32): the sum is ndarray's within about one f32
// rounding, not bit for bit. The other reductions and dtypes run on the host. The lanes, chunks
// and the two dispatches are shared with vulkan (backends/shader/reduce_passes.h).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "backends/wgpu/command_stream.h"
#include "backends/wgpu/device_pages.h"
#include "backends/wgpu/kernel_cache.h"
#include "ir/ops.h"

namespace ember::wgpu {

class ReduceKernel {
 public:
  /// scratch(bytes, &range) gives a device buffer of bytes (range: where it lies), held while
  /// the returned pointer lives: the partial sums between the passes.
  ReduceKernel(const Adapter& adapter, KernelCache& kernels, CommandStream& stream,
               std::function<std::shared_ptr<const void>(uint64_t, BufferRange*)> scratch);

  /// Whether run takes reduce of x: Sum or Mean (of a lane that is not empty) on f32, x and the
  /// partial sums within one binding, lanes of at most 2^26 elements.
  bool takes(const ir::Reduce& reduce, const ir::TensorMeta& x) const;
  /// Records reduce of x (contiguous) into out (its result, contiguous). takes() holds.
  void run(const ir::Reduce& reduce, const BufferRange& x, const ir::TensorMeta& x_meta,
           const BufferRange& out);

 private:
  uint64_t max_binding_;
  uint32_t max_groups_;
  KernelCache& kernels_;
  CommandStream& stream_;
  std::function<std::shared_ptr<const void>(uint64_t, BufferRange*)> scratch_;
};

}  // namespace ember::wgpu
