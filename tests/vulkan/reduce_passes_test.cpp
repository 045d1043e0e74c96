// The lane geometry of the shader backends' reductions and softmax (backends/shader/
// reduce_passes.h, softmax_passes.h), without a device: how many invocations a reduction's first
// pass spreads over, and that no invocation loops past lavapipe's 65535 turns.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>

#include "backends/shader/reduce_passes.h"
#include "backends/shader/softmax_passes.h"

namespace ember::shader {
namespace {

ir::Reduce reduce_along(ir::ReduceOp op, std::optional<int64_t> dim) {
  return ir::Reduce{op, dim};
}

TEST(ReducePasses, AWholeTensorSumOf2To24ElementsSpreadsOverManyWorkgroups) {
  const ReduceLanes lanes =
      ReduceLanes::of(reduce_along(ir::ReduceOp::Sum, std::nullopt), Shape{int64_t{1} << 24});
  // Every element in a chunk, no chunk past 4096 elements or the second pass's 16384 chunks.
  EXPECT_GE(lanes.chunks() * lanes.chunk(), uint64_t{1} << 24);
  EXPECT_LE(lanes.chunk(), kReduceChunk);
  EXPECT_LE(lanes.chunks(), kMaxReduceChunks);
  // 16384 invocations (64 workgroups of 256) in the first pass, not one.
  EXPECT_EQ(lanes.partials(), uint64_t{16384});
}

TEST(ReducePasses, FewLongRowsAreSpreadAndManyShortOnesAreOneChunkEach) {
  // 256 rows of 4096: 64 chunks of 64 a row, 16384 invocations.
  const ReduceLanes rows = ReduceLanes::of(reduce_along(ir::ReduceOp::Max, 1), Shape{256, 4096});
  EXPECT_EQ(rows.chunks(), uint64_t{64});
  EXPECT_EQ(rows.partials(), uint64_t{16384});
  // A lane of at most 64 elements stays one chunk, reduced in ndarray's order.
  const ReduceLanes short_lanes =
      ReduceLanes::of(reduce_along(ir::ReduceOp::Sum, 0), Shape{64, 3, 5});
  EXPECT_EQ(short_lanes.chunks(), uint64_t{1});
  EXPECT_EQ(short_lanes.outputs(), uint64_t{15});
  // Many lanes of 4096: one chunk each (the lanes alone fill the device).
  const ReduceLanes many = ReduceLanes::of(reduce_along(ir::ReduceOp::Sum, 1), Shape{65536, 4096});
  EXPECT_EQ(many.chunks(), uint64_t{1});
}

TEST(ReducePasses, TheyTakeOnlyWhatTheKernelsHold) {
  const ir::TensorMeta x{Shape{8, 100}, DType::F32};
  const ir::TensorMeta index{Shape{8, 1}, DType::I64};
  const uint64_t binding = uint64_t{1} << 27;
  EXPECT_TRUE(reduce_passes_take(reduce_along(ir::ReduceOp::ArgMax, 1), x, index, binding, 16,
                                 uint64_t{1} << 30));
  // An empty lane: ndarray's error (or NaN), not a kernel's; the sum of none is 0.
  const ir::TensorMeta empty{Shape{8, 0}, DType::F32};
  const ir::TensorMeta row{Shape{8, 1}, DType::F32};
  EXPECT_FALSE(reduce_passes_take(reduce_along(ir::ReduceOp::Max, 1), empty, row, binding, 16,
                                  uint64_t{1} << 30));
  EXPECT_TRUE(reduce_passes_take(reduce_along(ir::ReduceOp::Sum, 1), empty, row, binding, 16,
                                 uint64_t{1} << 30));
  // A tensor past one binding.
  EXPECT_FALSE(
      reduce_passes_take(reduce_along(ir::ReduceOp::Max, 1), x, row, 3199, 16, uint64_t{1} << 30));
  // Var's correction outside [0, 2^31).
  ir::Reduce var = reduce_along(ir::ReduceOp::Var, 1);
  var.correction = -1;
  EXPECT_FALSE(reduce_passes_take(var, x, row, binding, 16, uint64_t{1} << 30));
  // Which ops each kind of dtype takes: integers no sums (they wrap), Bool only any and all.
  EXPECT_FALSE(reduce_kernels_take(ir::ReduceOp::Sum, false, true, false));
  EXPECT_TRUE(reduce_kernels_take(ir::ReduceOp::ArgMin, false, true, false));
  EXPECT_FALSE(reduce_kernels_take(ir::ReduceOp::Max, false, false, true));
  EXPECT_TRUE(reduce_kernels_take(ir::ReduceOp::All, false, false, true));
}

TEST(SoftmaxPasses, ShortLanesAreAnInvocationEachAndLongOnesAWorkgroupWithinTheLoopLimit) {
  const uint32_t max_groups = 65535;
  const SoftmaxLanes short_lanes = SoftmaxLanes::of(ir::Softmax{0}, Shape{2, 3, 5000});
  EXPECT_TRUE(short_lanes.short_lanes());
  EXPECT_EQ(short_lanes.groups(max_groups), uint32_t{59});  // 15000 lanes / 256, rounded up
  const SoftmaxLanes rows = SoftmaxLanes::of(ir::Softmax{1}, Shape{256, 4096});
  EXPECT_FALSE(rows.short_lanes());
  EXPECT_EQ(rows.groups(max_groups), uint32_t{256});
  // Three passes of 16 turns over a row of 4096 and two trees of 8: within 65535.
  EXPECT_EQ(rows.turns(max_groups), uint64_t{1 + 3 * 16 + 16});
  // A lane of 2^23 elements would loop past the limit: the host takes it.
  const ir::TensorMeta huge{Shape{1, int64_t{1} << 23}, DType::F32};
  DeviceLimits limits{uint64_t{1} << 31,       max_groups,          16384, 8, kCpuDeviceLoopTurns,
                      dispatch_turns_on(true), fill_groups_on(true)};
  EXPECT_FALSE(softmax_passes_take(ir::Softmax{1}, huge, limits));
  EXPECT_TRUE(softmax_passes_take(ir::Softmax{1}, {Shape{256, 4096}, DType::F32}, limits));
  // A GPU's loops have no such limit: the device takes it.
  limits.max_loop_turns = loop_turns_on(false);
  EXPECT_TRUE(softmax_passes_take(ir::Softmax{1}, huge, limits));
}

}  // namespace
}  // namespace ember::shader
