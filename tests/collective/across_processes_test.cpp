// The collectives across processes (Gloo over TCP on loopback), the processes played by threads
// of this test, each a group of its own with two local ranks: four ranks in all, numbered
// process by process.
#include <gtest/gtest.h>

#include <functional>
#include <thread>

#include "collective/collective_test_util.h"

namespace ember::test {
namespace {

using collective::Communicator;
using collective::Group;
using collective::ReduceOp;

/// Runs body on every rank of world processes of local ranks each, every process a thread
/// making its own group; rethrows the first failure.
void run_processes(int world, int local, const std::function<void(Communicator&)>& body,
                   std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
  const uint16_t port = free_port();
  std::vector<std::thread> processes;
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(world));
  for (int p = 0; p < world; ++p) {
    processes.emplace_back([&, p] {
      try {
        Group group =
            Group::create(cpu_ranks(local), loopback_process(p, world, port), {.timeout = timeout});
        group.run(body);
      } catch (...) {
        errors[static_cast<std::size_t>(p)] = std::current_exception();
      }
    });
  }
  for (std::thread& process : processes)
    process.join();
  for (const std::exception_ptr& error : errors)
    if (error) std::rethrow_exception(error);
}

TEST(AcrossProcesses, EveryCollectiveIsExactOverFourRanksInTwoProcesses) {
  run_processes(2, 2, [](Communicator& comm) {
    EXPECT_EQ(comm.size(), 4);
    const int64_t r = comm.rank();
    const TensorHandle x = tensor_of(std::vector<int64_t>{r, 10 * r, 100, -r, 7, 3 * r, r, 1},
                                     Shape{4, 2}, comm.device());
    EXPECT_EQ(values_of<int64_t>(comm.all_reduce(x, ReduceOp::Sum)),
              (std::vector<int64_t>{6, 60, 400, -6, 28, 18, 6, 4}));
    EXPECT_EQ(values_of<int64_t>(comm.all_reduce(x, ReduceOp::Max)),
              (std::vector<int64_t>{3, 30, 100, 0, 7, 9, 3, 1}));
    EXPECT_EQ(values_of<int64_t>(comm.broadcast(x, 3)),
              (std::vector<int64_t>{3, 30, 100, -3, 7, 9, 3, 1}));
    const std::vector<int64_t> sums{6, 60, 400, -6, 28, 18, 6, 4};
    EXPECT_EQ(values_of<int64_t>(comm.reduce_scatter(x, ReduceOp::Sum)),
              (std::vector<int64_t>{sums[2 * r], sums[2 * r + 1]}));
    const TensorHandle row = tensor_of(std::vector<int64_t>{r}, Shape{1}, comm.device());
    EXPECT_EQ(values_of<int64_t>(comm.all_gather(row)), (std::vector<int64_t>{0, 1, 2, 3}));
    const auto f = static_cast<float>(r);
    const TensorHandle y = tensor_of(std::vector<float>{f, 0.25F}, Shape{2}, comm.device());
    EXPECT_EQ(values_of<float>(comm.all_reduce(y, ReduceOp::Mean)),
              (std::vector<float>{1.5F, 0.25F}));
  });
}

TEST(AcrossProcesses, ProcessesThatDisagreeOnTheShapeFailNamingBoth) {
  try {
    run_processes(2, 1, [](Communicator& comm) {
      const std::vector<float> values(comm.rank() == 0 ? 2 : 3, 1.0F);
      comm.all_reduce(tensor_of(values, Shape{static_cast<int64_t>(values.size())}, comm.device()),
                      ReduceOp::Sum);
    });
    ADD_FAILURE() << "no exception";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("process 0 passed all_reduce [2] f32"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("process 1 all_reduce [3] f32"), std::string::npos)
        << e.what();
  }
}

TEST(AcrossProcesses, AProcessThatNeverComesIsATimeout) {
  const uint16_t port = free_port();
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(Group::create(cpu_ranks(1), loopback_process(0, 2, port),
                             {.timeout = std::chrono::milliseconds(500)}),
               ExecutionError);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
}

TEST(AcrossProcesses, AProcessThatLeavesMidRunIsAnErrorNotAHang) {
  const uint16_t port = free_port();
  const collective::GroupOptions options{.timeout = std::chrono::seconds(2)};
  std::exception_ptr stayed_error;
  std::thread stays([&] {
    try {
      Group group = Group::create(cpu_ranks(1), loopback_process(0, 2, port), options);
      Communicator& comm = group.communicator(0);
      const TensorHandle x = tensor_of(std::vector<float>{1.0F}, Shape{1}, comm.device());
      comm.all_reduce(x, ReduceOp::Sum);
      comm.all_reduce(x, ReduceOp::Sum);  // the peer has gone
    } catch (...) {
      stayed_error = std::current_exception();
    }
  });
  {
    Group group = Group::create(cpu_ranks(1), loopback_process(1, 2, port), options);
    Communicator& comm = group.communicator(0);
    comm.all_reduce(tensor_of(std::vector<float>{1.0F}, Shape{1}, comm.device()), ReduceOp::Sum);
  }  // leaves: its connections close
  stays.join();
  ASSERT_TRUE(stayed_error);
  EXPECT_THROW(std::rethrow_exception(stayed_error), ExecutionError);
}

TEST(AcrossProcesses, AProcessThatStopsCallingIsATimeout) {
  const uint16_t port = free_port();
  const collective::GroupOptions options{.timeout = std::chrono::seconds(1)};
  std::exception_ptr waited_error;
  std::thread waits([&] {
    try {
      Group group = Group::create(cpu_ranks(1), loopback_process(0, 2, port), options);
      Communicator& comm = group.communicator(0);
      comm.all_reduce(tensor_of(std::vector<float>{1.0F}, Shape{1}, comm.device()),
                      ReduceOp::Sum);  // the peer never comes to this one
    } catch (...) {
      waited_error = std::current_exception();
    }
  });
  // Joins, stays connected and silent past the timeout, then leaves.
  Group silent = Group::create(cpu_ranks(1), loopback_process(1, 2, port), options);
  waits.join();
  ASSERT_TRUE(waited_error);
  try {
    std::rethrow_exception(waited_error);
  } catch (const ExecutionError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("[all_reduce] across processes (Gloo): ", 0), 0u)
        << e.what();
  }
}

}  // namespace
}  // namespace ember::test
