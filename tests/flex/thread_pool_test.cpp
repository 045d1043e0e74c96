// The flex thread pool: coverage of the index range, chunk sizes, nesting, exceptions, several
// callers at once, the default thread count (EMBER_NUM_THREADS, OMP_NUM_THREADS, the affinity
// mask) and resizing.
#include <gtest/gtest.h>

#include <sched.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
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

TEST(FlexThreadPool, ThreadCountComesFromEmberNumThreadsThenOmpNumThreadsThenTheAffinity) {
  EXPECT_EQ(thread_count_from(nullptr, nullptr, 8), 8);
  EXPECT_EQ(thread_count_from("3", nullptr, 8), 3);
  EXPECT_EQ(thread_count_from("3", "5", 8), 3) << "EMBER_NUM_THREADS first";
  EXPECT_EQ(thread_count_from(nullptr, "5", 8), 5);
  EXPECT_EQ(thread_count_from(nullptr, "6,2", 8), 6) << "OpenMP's outermost level";
  EXPECT_EQ(thread_count_from("0", "5", 8), 5) << "an unusable EMBER_NUM_THREADS is skipped";
  for (const char* bad : {"", "0", "-2", "4x", "many", ",4"})
    EXPECT_EQ(thread_count_from(bad, bad, 8), 8) << "'" << bad << "'";
  EXPECT_EQ(thread_count_from(nullptr, nullptr, 0), 1) << "an unknown CPU count still gives 1";
}

TEST(FlexThreadPool, AvailableCpusFollowTheAffinityMask) {
  cpu_set_t original;
  ASSERT_EQ(sched_getaffinity(0, sizeof original, &original), 0);
  const int allowed = CPU_COUNT(&original);
  EXPECT_EQ(available_cpus(), allowed);
  // What `taskset -c <first allowed CPU>` does: one CPU, whatever the machine has.
  int first = 0;
  while (!CPU_ISSET(first, &original))
    ++first;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  const int restricted = available_cpus();
  ASSERT_EQ(sched_setaffinity(0, sizeof original, &original), 0);
  EXPECT_EQ(restricted, 1);
}

TEST(FlexThreadPool, SetThreadsStartsAndRetiresWorkers) {
  ThreadPool pool(2);
  const auto threads_used = [&pool] {
    std::mutex mutex;
    std::set<std::thread::id> ids;
    // Each chunk waits a little, so that every worker takes part.
    pool.parallel_for(128, 1, [&](int64_t, int64_t) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      const std::lock_guard lock(mutex);
      ids.insert(std::this_thread::get_id());
    });
    return ids.size();
  };
  EXPECT_LE(threads_used(), 2u);
  pool.set_threads(5);
  EXPECT_EQ(pool.threads(), 5);
  EXPECT_GT(threads_used(), 2u);
  EXPECT_LE(threads_used(), 5u);
  pool.set_threads(1);
  EXPECT_EQ(threads_used(), 1u) << "one thread: the caller alone";
  pool.set_threads(0);
  EXPECT_EQ(pool.threads(), 1) << "at least 1";
}

}  // namespace
}  // namespace ember::flex
