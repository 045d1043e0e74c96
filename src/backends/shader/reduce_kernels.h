// ReduceKernel: the shader backends' reductions along one dim or over the whole tensor, in two
// passes (reduce_passes.h's lanes, chunks and dispatches), written once over a backend's
// KernelRunner (kernel_runner.h) and its kernel sources (GLSL for vulkan, WGSL for wgpu: each
// backend's reduce_sources.h, which also says which dtypes its kernels compute).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>

#include "backends/shader/kernel_runner.h"
#include "backends/shader/reduce_passes.h"
#include "ir/ops.h"

namespace ember::shader {

/// A backend's reduction kernels and what they hold.
struct ReduceSources {
  /// The bytes of a chunk's partial result between the passes.
  uint64_t partial_bytes = 0;
  /// Whether one invocation writes the word of four lanes' Bool results (the kernels have no
  /// 8-bit storage): their chunks, four lanes' worth, must stay within the device's loop turns.
  bool packed_bools = false;
  /// Whether the kernels compute op on x's dtype on the device.
  std::function<bool(ir::ReduceOp, DType)> takes_dtype;
  /// The first pass of op on x's dtype: each chunk of a lane reduced in order by one invocation.
  std::string (*partial)(ir::ReduceOp op, DType x) = nullptr;
  /// The second pass: each lane's chunks combined in order into its result, of out's dtype.
  std::string (*finish)(ir::ReduceOp op, DType x, DType out) = nullptr;
};

/// Runner: a backend's KernelRunner.
template <typename Runner>
class ReduceKernel {
 public:
  using Range = typename Runner::Range;

  /// scratch: the chunks' partial results between the passes.
  ReduceKernel(const Runner& runner, ReduceSources sources, Scratch<Range> scratch)
      : runner_(runner), sources_(std::move(sources)), scratch_(std::move(scratch)) {}

  /// Whether run takes reduce of x into out: the op on x's dtype as the sources compute it, an
  /// index of i64 or i32, what reduce_passes_take takes (lanes of at most 2^26 elements).
  bool takes(const ir::Reduce& reduce, const ir::TensorMeta& x, const ir::TensorMeta& out) const {
    const bool arg = reduce.op == ir::ReduceOp::ArgMax || reduce.op == ir::ReduceOp::ArgMin;
    if (arg && out.dtype != DType::I64 && out.dtype != DType::I32) return false;
    const bool truth = reduce.op == ir::ReduceOp::Any || reduce.op == ir::ReduceOp::All;
    if (truth && sources_.packed_bools &&
        4 * ReduceLanes::of(reduce, x.shape).chunks() > runner_.limits().max_loop_turns)
      return false;
    // Each chunk's partial words are indexed in 32 bits: fewer than 2^30 chunks.
    return sources_.takes_dtype(reduce.op, x.dtype) &&
           reduce_passes_take(reduce, x, out, runner_.limits().max_binding, sources_.partial_bytes,
                              uint64_t{1} << 30);
  }
  /// Records reduce of x (contiguous) into out (its result, contiguous). takes() holds.
  void run(const ir::Reduce& reduce, const Range& x, const ir::TensorMeta& x_meta, const Range& out,
           const ir::TensorMeta& out_meta) {
    record_reduce_passes(reduce, x_meta, x, out, sources_.partial(reduce.op, x_meta.dtype),
                         sources_.finish(reduce.op, x_meta.dtype, out_meta.dtype),
                         sources_.partial_bytes, runner_.limits().max_groups, scratch_,
                         runner_.dispatcher());
  }

 private:
  Runner runner_;
  ReduceSources sources_;
  Scratch<Range> scratch_;
};

}  // namespace ember::shader
