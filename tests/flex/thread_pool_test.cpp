// The flex thread pool: coverage of the index range, chunk sizes, nesting, exceptions, several
// callers at once, and the EMBER_NUM_THREADS rule.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "backends/flex/thread_pool.h"

namespace ember::flex {
namespace {

TEST(FlexThreadPool, EveryIndexRunsExactlyOnceInChunksOfAtLeastTheGrain) {
  ThreadPool pool(4);
  constexpr int64_t n = 10'007;
  std::vector<std::atomic<int>> hits(n);
  std::mutex mutex;
  std::vector<std::pair<int64_t, int64_t>> chunks;
  pool.parallel_for(n, 100, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      ++hits[static_cast<std::size_t>(i)];
    const std::lock_guard lock(mutex);
    chunks.emplace_back(begin, end);
  });
  for (int64_t i = 0; i < n; ++i)
    EXPECT_EQ(hits[static_cast<std::size_t>(i)], 1) << i;
  for (const auto& [begin, end] : chunks) {
    if (end != n) {
      EXPECT_GE(end - begin, 100);
    }
  }
  EXPECT_GT(chunks.size(), 1u);
}

TEST(FlexThreadPool, SmallRangesAndOneThreadRunInlineOnTheCaller) {
  const std::thread::id caller = std::this_thread::get_id();
  ThreadPool pool(4);
  pool.parallel_for(50, 100, [&](int64_t begin, int64_t end) {
    EXPECT_EQ(std::make_pair(begin, end), std::make_pair(int64_t{0}, int64_t{50}));
    EXPECT_EQ(std::this_thread::get_id(), caller);
  });
  ThreadPool single(1);
  single.parallel_for(1'000'000, 1, [&](int64_t begin, int64_t end) {
    EXPECT_EQ(end - begin, 1'000'000);
    EXPECT_EQ(std::this_thread::get_id(), caller);
  });
  int calls = 0;
  pool.parallel_for(0, 1, [&](int64_t, int64_t) { ++calls; });
  EXPECT_EQ(calls, 0) << "an empty range runs nothing";
}

TEST(FlexThreadPool, NestedCallsRunInlineInsteadOfWaitingOnThePool) {
  ThreadPool pool(3);
  std::atomic<int64_t> total{0};
  pool.parallel_for(64, 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      pool.parallel_for(100, 1, [&](int64_t b, int64_t e) { total += e - b; });
    }
  });
  EXPECT_EQ(total, 6400);
}

TEST(FlexThreadPool, AnExceptionInAChunkReachesTheCallerAfterEveryChunkEnded) {
  ThreadPool pool(4);
  std::atomic<int64_t> covered{0};
  std::atomic<int> running{0};
  struct Running {
    std::atomic<int>& count;
    explicit Running(std::atomic<int>& c) : count(c) { ++count; }
    ~Running() { --count; }
  };
  EXPECT_THROW(pool.parallel_for(1000, 10,
                                 [&](int64_t begin, int64_t end) {
                                   const Running guard(running);
                                   covered += end - begin;
                                   if (begin <= 500 && 500 < end) {
                                     throw std::runtime_error("chunk failed");
                                   }
                                 }),
               std::runtime_error);
  EXPECT_EQ(running, 0) << "no chunk may still be running";
  EXPECT_EQ(covered, 1000) << "the other chunks still ran";
  std::atomic<int64_t> sum{0};
  pool.parallel_for(1000, 10, [&](int64_t begin, int64_t end) { sum += end - begin; });
  EXPECT_EQ(sum, 1000) << "the pool still works afterwards";
}

TEST(FlexThreadPool, SeveralCallersShareThePool) {
  ThreadPool pool(3);
  std::vector<std::thread> callers;
  std::vector<int64_t> sums(4, 0);
  for (std::size_t t = 0; t < sums.size(); ++t) {
    callers.emplace_back([&, t] {
      for (int round = 0; round < 20; ++round) {
        std::atomic<int64_t> sum{0};
        pool.parallel_for(5000, 50, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i)
            sum += i;
        });
        sums[t] += sum;
      }
    });
  }
  for (std::thread& caller : callers)
    caller.join();
  for (const int64_t s : sums)
    EXPECT_EQ(s, 20 * (4999 * 5000 / 2));
}

TEST(FlexThreadPool, ThreadCountComesFromEmberNumThreadsOrTheHardware) {
  EXPECT_EQ(thread_count_from(nullptr, 8), 8);
  EXPECT_EQ(thread_count_from("3", 8), 3);
  EXPECT_EQ(thread_count_from("", 8), 8);
  EXPECT_EQ(thread_count_from("0", 8), 8);
  EXPECT_EQ(thread_count_from("-2", 8), 8);
  EXPECT_EQ(thread_count_from("4x", 8), 8);
  EXPECT_EQ(thread_count_from("many", 8), 8);
  EXPECT_EQ(thread_count_from(nullptr, 0), 1) << "an unknown hardware count still gives 1";
  EXPECT_GE(ThreadPool::instance().threads(), 1);
}

}  // namespace
}  // namespace ember::flex
