// The vulkan backend's reductions along one dim or over the whole tensor, in two passes: each chunk
// of a lane (chunk c of C: its elements c, c + C, ...; up to 4096, fewer where few lanes would
// leave the device idle) reduced in order in double by one invocation, then each lane's chunks in
// order (lavapipe ends an invocation's loops after 65535 turns). Sum, Mean, Prod and Var (ndarray's
// two passes a chunk, then Chan's merge of the chunks) of f32 and f64; Max, Min, ArgMax, ArgMin
// (the first extreme, the first NaN winning, as ndarray) of those and i32, u32; Any and All of
// those and Bool. A lane of one chunk is ndarray's result bit for bit; longer ones differ by the
// rounding of the chunks' (max, min and their indices, any and all: exact). A device without
// doubles, and the other dtypes, run on the host. The lanes, chunks and the two dispatches are
// shared with wgpu (backends/shader/reduce_passes.h).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <utility>

#include "backends/vulkan/device_pages.h"
#include "backends/vulkan/kernel_runner.h"
#include "ir/ops.h"

namespace ember::vulkan {

class ReduceKernel {
 public:
  /// scratch(bytes, &range) gives a device buffer of bytes (range: where it lies), held while
  /// the returned pointer lives: the chunks' partial results between the passes.
  /// features: the dtypes the device computes and stores.
  ReduceKernel(const KernelRunner& runner, const Features& features,
               std::function<std::shared_ptr<const void>(uint64_t, BufferRange*)> scratch)
      : features_(features), runner_(runner), scratch_(std::move(scratch)) {}

  /// Whether run takes reduce of x into out: the op on x's dtype as above on a device with
  /// doubles (Any and All: and 8-bit storage, for the Bool result), an index of i64 or i32, what
  /// shader::reduce_passes_take takes (lanes of at most 2^26 elements).
  bool takes(const ir::Reduce& reduce, const ir::TensorMeta& x, const ir::TensorMeta& out) const;
  /// Records reduce of x (contiguous) into out (its result, contiguous). takes() holds.
  void run(const ir::Reduce& reduce, const BufferRange& x, const ir::TensorMeta& x_meta,
           const BufferRange& out, const ir::TensorMeta& out_meta);

 private:
  Features features_;
  KernelRunner runner_;
  std::function<std::shared_ptr<const void>(uint64_t, BufferRange*)> scratch_;
};

}  // namespace ember::vulkan
