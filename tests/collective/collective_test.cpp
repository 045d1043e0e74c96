// The collectives within one process (shared memory) on CPU devices: exact results, the
// reduction order of float sums, and clear errors for ranks that disagree or never arrive.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <limits>

#include "collective/collective_test_util.h"

namespace ember::test {
namespace {

using collective::Communicator;
using collective::Group;
using collective::ReduceOp;

/// Rank r's integers: r * 10 + i, i < 6, shape [3, 2].
TensorHandle rank_integers(const Communicator& comm) {
  std::vector<int64_t> values;
  for (int64_t i = 0; i < 6; ++i)
    values.push_back(comm.rank() * 10 + i);
  return tensor_of(values, Shape{3, 2}, comm.device());
}

TEST(Collective, AllReduceOfIntegersIsExactForSumAndMax) {
  Group group = Group::create(cpu_ranks(3));
  group.run([](Communicator& comm) {
    const TensorHandle x = rank_integers(comm);
    const TensorHandle sum = comm.all_reduce(x, ReduceOp::Sum);
    EXPECT_EQ(sum.device(), comm.device());
    EXPECT_EQ(sum.shape(), (Shape{3, 2}));
    // Sum over r of (10 r + i) = 10 (0 + 1 + 2) + 3 i.
    EXPECT_EQ(values_of<int64_t>(sum), (std::vector<int64_t>{30, 33, 36, 39, 42, 45}));
    EXPECT_EQ(values_of<int64_t>(comm.all_reduce(x, ReduceOp::Max)),
              (std::vector<int64_t>{20, 21, 22, 23, 24, 25}));
  });
}

TEST(Collective, FloatSumsAddTheRanksInRankOrder) {
  // In f32, (1e8 + 1) - 1e8 is 0 (1e8 + 1 rounds to 1e8) while 1e8 + (1 - 1e8) is 0 too, but
  // (1e8 - 1e8) + 1 is 1: rank order ((r0 + r1) + r2) must give the first, on every run.
  const std::vector<float> by_rank{1e8F, 1.0F, -1e8F};
  Group group = Group::create(cpu_ranks(3));
  group.run([&](Communicator& comm) {
    const float mine = by_rank[static_cast<std::size_t>(comm.rank())];
    const TensorHandle x =
        tensor_of(std::vector<float>{mine, 0.5F * mine}, Shape{2}, comm.device());
    const float expected0 = (by_rank[0] + by_rank[1]) + by_rank[2];
    const float expected1 = (0.5F * by_rank[0] + 0.5F * by_rank[1]) + 0.5F * by_rank[2];
    EXPECT_EQ(values_of<float>(comm.all_reduce(x, ReduceOp::Sum)),
              (std::vector<float>{expected0, expected1}));
  });
}

TEST(Collective, MeanDividesTheSumByTheGroupSize) {
  Group group = Group::create(cpu_ranks(4));
  group.run([](Communicator& comm) {
    const auto r = static_cast<double>(comm.rank());
    const TensorHandle x = tensor_of(std::vector<double>{r, -2.0 * r}, Shape{2}, comm.device());
    // (0 + 1 + 2 + 3) / 4 = 1.5, exact in binary.
    EXPECT_EQ(values_of<double>(comm.all_reduce(x, ReduceOp::Mean)),
              (std::vector<double>{1.5, -3.0}));
  });
}

TEST(Collective, HalfPrecisionIsReducedInF32AndRoundedOnce) {
  Group group = Group::create(cpu_ranks(2));
  group.run([](Communicator& comm) {
    // 2048 + 1 + 1: f16 steps are 2 above 2048, so adding 1 twice in f16 would stay at 2048.
    const std::vector<float> mine =
        comm.rank() == 0 ? std::vector<float>{2048.0F} : std::vector<float>{2.0F};
    const TensorHandle x = ops::cast(tensor_of(mine, Shape{1}, comm.device()), DType::F16);
    const TensorHandle sum = comm.all_reduce(x, ReduceOp::Sum);
    EXPECT_EQ(sum.dtype(), DType::F16);
    EXPECT_EQ(values_of<float>(sum), std::vector<float>{2050.0F});
  });
}

TEST(Collective, BroadcastGivesEveryRankTheRootsTensor) {
  Group group = Group::create(cpu_ranks(3));
  group.run([](Communicator& comm) {
    const TensorHandle out = comm.broadcast(rank_integers(comm), 2);
    EXPECT_EQ(values_of<int64_t>(out), (std::vector<int64_t>{20, 21, 22, 23, 24, 25}));
  });
}

TEST(Collective, ReduceScatterGivesEachRankItsRowsOfTheSum) {
  Group group = Group::create(cpu_ranks(3));
  group.run([](Communicator& comm) {
    const TensorHandle out = comm.reduce_scatter(rank_integers(comm), ReduceOp::Sum);
    EXPECT_EQ(out.shape(), (Shape{1, 2}));
    const int64_t row = comm.rank();
    EXPECT_EQ(values_of<int64_t>(out), (std::vector<int64_t>{30 + 6 * row, 33 + 6 * row}));
  });
}

TEST(Collective, AllGatherJoinsTheRanksAlongDimZero) {
  Group group = Group::create(cpu_ranks(2));
  group.run([](Communicator& comm) {
    const int32_t r = comm.rank();
    const TensorHandle x = tensor_of(std::vector<int32_t>{r, r + 100}, Shape{1, 2}, comm.device());
    const TensorHandle out = comm.all_gather(x);
    EXPECT_EQ(out.shape(), (Shape{2, 2}));
    EXPECT_EQ(values_of<int32_t>(out), (std::vector<int32_t>{0, 100, 1, 101}));
  });
}

TEST(Collective, ManyCallsInARowStayInStep) {
  Group group = Group::create(cpu_ranks(3));
  group.run([](Communicator& comm) {
    for (int32_t step = 0; step < 200; ++step) {
      const TensorHandle x =
          tensor_of(std::vector<int32_t>{step + comm.rank()}, Shape{1}, comm.device());
      ASSERT_EQ(values_of<int32_t>(comm.all_reduce(x, ReduceOp::Sum)),
                std::vector<int32_t>{3 * step + 3});
    }
  });
}

/// The message of the exception f throws, which must be an E.
template <typename E, typename F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  ADD_FAILURE() << "no exception";
  return "";
}

TEST(CollectiveErrors, RanksThatDisagreeOnTheShapeAllFailNamingBoth) {
  Group group = Group::create(cpu_ranks(2));
  std::atomic<int> failed{0};
  EXPECT_THROW(group.run([&](Communicator& comm) {
    const std::vector<float> values(comm.rank() == 0 ? 4 : 6, 1.0F);
    const auto n = static_cast<int64_t>(values.size());
    const std::string what = message_of<InvalidArgument>(
        [&] { comm.all_reduce(tensor_of(values, Shape{n}, comm.device()), ReduceOp::Sum); });
    EXPECT_NE(what.find("[all_reduce] the ranks disagree: local rank 0 passed all_reduce [4] f32"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("local rank 1 all_reduce [6] f32"), std::string::npos) << what;
    ++failed;
    throw InvalidArgument(what);
  }),
               InvalidArgument);
  EXPECT_EQ(failed.load(), 2);
}

TEST(CollectiveErrors, RanksThatDisagreeOnTheDtypeFail) {
  Group group = Group::create(cpu_ranks(2));
  EXPECT_THROW(group.run([](Communicator& comm) {
    const TensorHandle x = tensor_of(std::vector<float>{1.0F}, Shape{1}, comm.device());
    comm.all_reduce(comm.rank() == 0 ? x : ops::cast(x, DType::F64), ReduceOp::Sum);
  }),
               InvalidArgument);
}

TEST(CollectiveErrors, ATensorOnAnotherDeviceThanTheRanksIsRefused) {
  Group group = Group::create({Device::flex(), Device::ndarray()});
  group.run([](Communicator& comm) {
    const TensorHandle elsewhere = tensor_of(std::vector<float>{1.0F}, Shape{1}, Device::cpu());
    const std::string what =
        message_of<InvalidArgument>([&] { comm.all_reduce(elsewhere, ReduceOp::Sum); });
    EXPECT_NE(what.find("[all_reduce] rank " + std::to_string(comm.rank()) + "'s tensor is on cpu"),
              std::string::npos)
        << what;
  });
}

TEST(CollectiveErrors, AnEmptyGroupAndBadArgumentsAreRefused) {
  EXPECT_THROW(Group::create({}), InvalidArgument);
  Group group = Group::create(cpu_ranks(2));
  EXPECT_THROW(group.communicator(2), InvalidArgument);
  Communicator& comm = group.communicator(0);
  const TensorHandle odd = tensor_of(std::vector<int32_t>{1, 2, 3}, Shape{3}, comm.device());
  EXPECT_THROW(comm.reduce_scatter(odd, ReduceOp::Sum), InvalidArgument);
  EXPECT_THROW(comm.broadcast(odd, 2), InvalidArgument);
  EXPECT_THROW(comm.all_reduce(odd, ReduceOp::Mean), InvalidArgument);  // an integer mean
}

TEST(CollectiveErrors, ARankThatNeverArrivesIsATimeoutNotAHang) {
  Group group = Group::create(cpu_ranks(2), {.timeout = std::chrono::milliseconds(200)});
  Communicator& comm = group.communicator(0);  // rank 1 never calls
  const TensorHandle x = tensor_of(std::vector<float>{1.0F}, Shape{1}, comm.device());
  const std::string what = message_of<ExecutionError>([&] { comm.all_reduce(x, ReduceOp::Sum); });
  EXPECT_NE(what.find("local rank 0 waited 200 ms in all_reduce for local rank 1"),
            std::string::npos)
      << what;
  // The group is broken for good: a later call fails at once.
  EXPECT_THROW(comm.all_reduce(x, ReduceOp::Sum), ExecutionError);
}

TEST(CollectiveErrors, ARankThatFailsReleasesTheOthersAtOnce) {
  Group group = Group::create(cpu_ranks(3));  // the default timeout: 60 s
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(group.run([](Communicator& comm) {
    if (comm.rank() == 1) throw InvalidArgument("rank 1 gives up");
    comm.all_reduce(tensor_of(std::vector<float>{1.0F}, Shape{1}, comm.device()), ReduceOp::Sum);
  }),
               InvalidArgument);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

TEST(CollectiveEnvironment, ProcessInfoComesFromTheLaunchersVariables) {
  setenv("WORLD_SIZE", "3", 1);
  setenv("RANK", "2", 1);
  setenv("MASTER_ADDR", "10.0.0.1", 1);
  setenv("MASTER_PORT", "29500", 1);
  const collective::ProcessInfo info = collective::ProcessInfo::from_environment();
  EXPECT_EQ(info.rank, 2);
  EXPECT_EQ(info.world_size, 3);
  EXPECT_EQ(info.master_addr, "10.0.0.1");
  EXPECT_EQ(info.master_port, 29500);
  setenv("RANK", "3", 1);
  EXPECT_THROW(collective::ProcessInfo::from_environment(), InvalidArgument);
  unsetenv("MASTER_PORT");
  setenv("RANK", "1", 1);
  EXPECT_THROW(collective::ProcessInfo::from_environment(), InvalidArgument);
  for (const char* name : {"WORLD_SIZE", "RANK", "MASTER_ADDR"})
    unsetenv(name);
  EXPECT_EQ(collective::ProcessInfo::from_environment().world_size, 1);
}

}  // namespace
}  // namespace ember::test
