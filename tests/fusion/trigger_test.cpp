// When a stream executes: on a read, on a non-fusible op reading one of its buffers, on flush,
// on sync, on a switch of persistent allocations, and when it holds max_queued ops; never
// before. Ops the decorator cannot fuse (other dtypes, other families) run at once. A queue of
// one small op runs as one op on the inner backend, larger queues as programs: runs() counts
// both.
#include <gtest/gtest.h>

#include <vector>

#include "fusion_test_util.h"

namespace ember::fusion::test {
namespace {

const ir::Reduce kRowSums{ir::ReduceOp::Sum, 1};

TEST(FusionTriggers, QueuedOpsWaitForARead) {
  SpiedFusion spied;
  const TensorData data = varied_data({3, 4});
  const Value y = apply(*spied.fusion, kTanh, {put(*spied.fusion, data)});
  EXPECT_TRUE(is_lazy(y));
  EXPECT_EQ(spied.spy->runs(), 0);
  const TensorData values = get(*spied.fusion, y);
  EXPECT_EQ(spied.spy->runs(), 1);
  flex::FlexBackend eager;
  EXPECT_EQ(values, get(eager, apply(eager, kTanh, {put(eager, data)})));
}

TEST(FusionTriggers, ANonFusibleOpReadingAQueuedValueExecutesTheQueueFirst) {
  SpiedFusion spied;
  const TensorData data = varied_data({3, 4});
  const Value x = put(*spied.fusion, data);
  const Value y = apply(*spied.fusion, kTanh, {x});
  // A non-fusible op that reads no queued value leaves the queue alone.
  const Value plain_sums = apply(*spied.fusion, kRowSums, {x});
  EXPECT_EQ(spied.spy->ops, 1);
  const Value sums = apply(*spied.fusion, kRowSums, {y});
  EXPECT_EQ(spied.spy->ops, 3);  // tanh (alone in the queue), then the sums
  EXPECT_FALSE(is_lazy(sums));
  ndarray::NdArrayBackend reference;
  const Value expected =
      apply(reference, kRowSums, {apply(reference, kTanh, {put(reference, data)})});
  std::string why;
  EXPECT_TRUE(get(*spied.fusion, sums)
                  .approx_equal(get(reference, expected), Tolerance::for_dtype(DType::F32), &why))
      << why;
}

TEST(FusionTriggers, FlushAndSyncExecuteTheQueue) {
  for (const bool sync : {false, true}) {
    SpiedFusion spied;
    const Value y = apply(*spied.fusion, kTanh, {put(*spied.fusion, varied_data({5}))});
    if (sync) {
      spied.fusion->sync();
    } else {
      spied.fusion->flush();
    }
    EXPECT_EQ(spied.spy->runs(), 1) << (sync ? "sync" : "flush");
    get(*spied.fusion, y);
    EXPECT_EQ(spied.spy->runs(), 1) << (sync ? "sync" : "flush");
  }
}

TEST(FusionTriggers, SwitchingPersistentAllocationsExecutesTheQueueFirst) {
  SpiedFusion spied;
  const Value y = apply(*spied.fusion, kTanh, {put(*spied.fusion, varied_data({5}))});
  spied.fusion->begin_persistent_allocations();
  EXPECT_EQ(spied.spy->runs(), 1);
  spied.fusion->end_persistent_allocations();
}

TEST(FusionTriggers, TheQueueExecutesWhenItReachesItsBound) {
  FusionOptions options;
  options.max_queued = 4;
  SpiedFusion spied(options);
  std::vector<Value> held = {put(*spied.fusion, varied_data({6}))};
  for (int op = 1; op <= 5; ++op) {
    held.push_back(apply(*spied.fusion, kTanh, {held.back()}));
    EXPECT_EQ(spied.spy->programs, op < 4 ? 0 : 1) << "after op " << op;
  }
  EXPECT_TRUE(is_lazy(held[5]));
  spied.fusion->flush();
  EXPECT_EQ(spied.spy->runs(), 2);  // the fifth op, alone, runs as an op
}

TEST(FusionTriggers, OpsOutsideTheFusibleSetRunAtOnce) {
  SpiedFusion spied;
  const TensorData f64(std::vector<double>{1.0, -2.0}, Shape{2});
  const TensorData i64(std::vector<int64_t>{7, 9}, Shape{2});
  const Value exp_f64 =
      apply(*spied.fusion, ir::Unary{ir::UnaryOp::Exp}, {put(*spied.fusion, f64)});
  const Value div_i64 =
      apply(*spied.fusion, ir::BinaryScalar{ir::BinaryOp::Div, 2}, {put(*spied.fusion, i64)});
  const Value f32_to_i64 =
      apply(*spied.fusion, ir::Cast{DType::I64}, {put(*spied.fusion, varied_data({2}))});
  EXPECT_FALSE(is_lazy(exp_f64));
  EXPECT_FALSE(is_lazy(div_i64));
  EXPECT_FALSE(is_lazy(f32_to_i64));
  EXPECT_EQ(spied.spy->ops, 3);
  EXPECT_EQ(get(*spied.fusion, div_i64).to_vector<int64_t>(), (std::vector<int64_t>{3, 4}));
}

}  // namespace
}  // namespace ember::fusion::test
