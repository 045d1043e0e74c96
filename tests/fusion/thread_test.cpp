// Streams are per thread (DESIGN.md §1): threads queue and execute their own work at once, a
// flush executes only the calling thread's queue, and a lazy buffer may be read, or fed to an
// op, on any thread.
#include <gtest/gtest.h>

#include <barrier>
#include <thread>
#include <vector>

#include "fusion_test_util.h"

namespace ember::fusion::test {
namespace {

/// GELU of data on eager flex: what every fused computation below must give.
TensorData eager_gelu(const TensorData& data) {
  flex::FlexBackend eager;
  return get(eager, gelu_from_primitives(eager, put(eager, data)));
}

TEST(FusionThreads, ThreadsBuildAndReadChainsConcurrently) {
  FusionBackend fusion(std::make_unique<flex::FlexBackend>(), FusionOptions{});
  constexpr int kThreads = 4;
  constexpr int kSteps = 20;
  std::vector<TensorData> inputs;
  std::vector<TensorData> expected;
  for (int t = 0; t < kThreads; ++t) {
    inputs.push_back(varied_data({37, 61}, t));
    expected.push_back(eager_gelu(inputs.back()));
  }
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int step = 0; step < kSteps; ++step) {
        const Value y = gelu_from_primitives(fusion, put(fusion, inputs[t]));
        EXPECT_EQ(get(fusion, y), expected[t]) << "thread " << t << " step " << step;
      }
    });
  }
  for (std::thread& thread : threads)
    thread.join();
  EXPECT_EQ(fusion.cache_stats().misses + fusion.cache_stats().hits,
            static_cast<uint64_t>(kThreads * kSteps));
}

TEST(FusionThreads, AFlushExecutesOnlyTheCallingThreadsQueue) {
  SpiedFusion spied;
  const TensorData data = varied_data({9});
  Value y;
  std::thread([&] { y = apply(*spied.fusion, kTanh, {put(*spied.fusion, data)}); }).join();
  spied.fusion->flush();
  EXPECT_EQ(spied.spy->runs(), 0);
  // Read here, on another thread than the one that queued it (which has even exited).
  const TensorData values = get(*spied.fusion, y);
  EXPECT_EQ(spied.spy->runs(), 1);
  flex::FlexBackend eager;
  EXPECT_EQ(values, get(eager, apply(eager, kTanh, {put(eager, data)})));
}

TEST(FusionThreads, AQueuedValueFeedsAnOpOfAnotherThread) {
  FusionBackend fusion(std::make_unique<flex::FlexBackend>(), FusionOptions{});
  const TensorData data = varied_data({4, 6});
  const Value y = apply(fusion, kTanh, {put(fusion, data)});  // queued on this thread
  TensorData fused;
  std::thread([&] { fused = get(fusion, apply(fusion, kTanh, {y})); }).join();
  flex::FlexBackend eager;
  EXPECT_EQ(fused, get(eager, apply(eager, kTanh, {apply(eager, kTanh, {put(eager, data)})})));
}

TEST(FusionThreads, ThreadsReadingEachOthersQueuedValuesDoNotDeadlock) {
  FusionBackend fusion(std::make_unique<flex::FlexBackend>(), FusionOptions{});
  const TensorData data = varied_data({64, 64});
  const TensorData expected = eager_gelu(data);
  constexpr int kRounds = 50;
  std::vector<Value> queued(2);
  std::barrier sync_point(2);
  const auto worker = [&](int self) {
    for (int round = 0; round < kRounds; ++round) {
      queued[static_cast<std::size_t>(self)] = gelu_from_primitives(fusion, put(fusion, data));
      sync_point.arrive_and_wait();
      // Each reads the other's buffer and feeds it to an op of its own stream.
      const Value other = queued[static_cast<std::size_t>(1 - self)];
      const Value copy = apply(fusion, ir::BinaryScalar{ir::BinaryOp::Mul, 1.0}, {other});
      EXPECT_EQ(get(fusion, copy), expected) << "round " << round;
      sync_point.arrive_and_wait();
    }
  };
  std::thread a(worker, 0);
  std::thread b(worker, 1);
  a.join();
  b.join();
}

}  // namespace
}  // namespace ember::fusion::test
