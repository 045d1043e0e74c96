// The wgpu backend's reductions along one dim or over the whole tensor, in two passes: each chunk
// of a lane (chunk c of C: its elements c, c + C, ...; up to 4096, fewer where few lanes would
// leave the device idle) reduced in order by one invocation, then each lane's chunks in order
// (lavapipe ends an invocation's loops after 65535 turns). Sum, Mean, Prod and Var of f32: WGSL has
// no double to add in as ndarray does, so sums carry each addition's rounding error along
// (Neumaier's compensated sum, a second f32) and Var merges the chunks' means and squared
// deviations (Chan et al.): within about one f32 rounding of ndarray's, not bit for bit. Max, Min,
// ArgMax, ArgMin (the first extreme, the first NaN winning, as ndarray) of f32, i32, u32 and Any,
// All of those and Bool: exact. The other dtypes run on the host. The lanes, chunks and the two
// dispatches are shared with vulkan (backends/shader/reduce_passes.h).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <utility>

#include "backends/wgpu/device_pages.h"
#include "backends/wgpu/kernel_runner.h"
#include "ir/ops.h"

namespace ember::wgpu {

class ReduceKernel {
 public:
  /// scratch(bytes, &range) gives a device buffer of bytes (range: where it lies), held while
  /// the returned pointer lives: the chunks' partial results between the passes.
  ReduceKernel(const KernelRunner& runner,
               std::function<std::shared_ptr<const void>(uint64_t, BufferRange*)> scratch)
      : runner_(runner), scratch_(std::move(scratch)) {}

  /// Whether run takes reduce of x into out: the op on x's dtype as above, an index of i64 or
  /// i32, what shader::reduce_passes_take takes (lanes of at most 2^26 elements).
  bool takes(const ir::Reduce& reduce, const ir::TensorMeta& x, const ir::TensorMeta& out) const;
  /// Records reduce of x (contiguous) into out (its result, contiguous). takes() holds.
  void run(const ir::Reduce& reduce, const BufferRange& x, const ir::TensorMeta& x_meta,
           const BufferRange& out, const ir::TensorMeta& out_meta);

 private:
  KernelRunner runner_;
  std::function<std::shared_ptr<const void>(uint64_t, BufferRange*)> scratch_;
};

}  // namespace ember::wgpu
