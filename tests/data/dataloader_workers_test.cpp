// DataLoader with worker threads: same batches as without, in order whatever the timing; the
// prefetch bound; early stops; errors crossing threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <limits>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <thread>
#include <vector>

#include "data_test_util.h"
#include "ember/data/dataloader.h"
#include "ember/data/in_memory_dataset.h"
#include "ember/data/mapped_dataset.h"

namespace ember::data {
namespace {

using namespace std::chrono_literals;
using Batch = std::vector<int>;
using test::collect;
using test::iota_dataset;

/// Returns its items after a delay that varies from batch to batch, so that workers finish
/// out of order.
Batch uneven_batcher(std::vector<int> items, const Device&) {
  std::this_thread::sleep_for(std::chrono::milliseconds(items.front() * 7 % 5));
  return items;
}

/// A count that a test can wait on (with a timeout, so that a failure cannot hang the suite).
class Counter {
 public:
  void increment() {
    {
      std::lock_guard lock(mutex_);
      ++value_;
    }
    changed_.notify_all();
  }
  bool wait_for_at_least(int n) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, 10s, [&] { return value_ >= n; });
  }
  int value() {
    std::lock_guard lock(mutex_);
    return value_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int value_ = 0;
};

TEST(DataLoaderWorkers, GiveTheSameBatchesInTheSameOrderAsNoWorkers) {
  for (bool shuffle : {false, true}) {
    const DataLoaderOptions inline_options{
        .batch_size = 3, .shuffle = shuffle ? std::optional<uint64_t>(8) : std::nullopt};
    DataLoaderOptions threaded_options = inline_options;
    threaded_options.num_workers = 3;
    threaded_options.prefetch = 4;
    DataLoader<int, Batch> inline_loader(iota_dataset(40), uneven_batcher, inline_options);
    DataLoader<int, Batch> threaded_loader(iota_dataset(40), uneven_batcher, threaded_options);
    for (int epoch = 0; epoch < 2; ++epoch) {
      EXPECT_EQ(collect(threaded_loader.epoch()), collect(inline_loader.epoch()))
          << "shuffle " << shuffle << " epoch " << epoch;
    }
  }
}

TEST(DataLoaderWorkers, BuildAtMostPrefetchBatchesAhead) {
  constexpr int kPrefetch = 3;
  std::atomic<int> consumed{0};
  std::atomic<int> most_ahead{0};
  Counter calls;
  auto batcher = [&](std::vector<int> items, const Device&) {
    const int ahead = items.front() - consumed.load();
    int seen = most_ahead.load();
    while (ahead > seen && !most_ahead.compare_exchange_weak(seen, ahead)) {
    }
    calls.increment();
    return items.front();
  };
  DataLoader<int, int> loader(iota_dataset(30), batcher,
                              {.batch_size = 1, .num_workers = 4, .prefetch = kPrefetch});
  int expected = 0;
  for (int batch : loader.epoch()) {
    EXPECT_EQ(batch, expected++);
    if (batch == 0) {
      // While batch 0 is held, workers build batches 1..prefetch and then must wait.
      EXPECT_TRUE(calls.wait_for_at_least(1 + kPrefetch));
      std::this_thread::sleep_for(50ms);
      EXPECT_EQ(calls.value(), 1 + kPrefetch);
    }
    ++consumed;
  }
  EXPECT_EQ(expected, 30);
  EXPECT_LE(most_ahead.load(), kPrefetch);
}

TEST(DataLoaderWorkers, BreakingEarlyStopsTheWorkers) {
  Counter calls;
  DataLoader<int, Batch> loader(iota_dataset(1000),
                                [&](std::vector<int> items, const Device&) {
                                  calls.increment();
                                  return items;
                                },
                                {.batch_size = 1, .num_workers = 4, .prefetch = 2});
  for (Batch& b : loader.epoch()) {
    EXPECT_EQ(b, Batch{0});
    break;
  }
  // Batch 0 handed out allows batches 1 and 2 to be built; nothing runs after the epoch ends.
  const int after_break = calls.value();
  EXPECT_LE(after_break, 3);
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(calls.value(), after_break);
}

TEST(DataLoaderWorkers, AnEpochNeverIteratedShutsDown) {
  DataLoader<int, Batch> loader(iota_dataset(100), uneven_batcher,
                                {.batch_size = 2, .num_workers = 3});
  { Epoch<Batch> unused = loader.epoch(); }
  EXPECT_EQ(collect(loader.epoch()).size(), 50u);
}

TEST(DataLoaderWorkers, RethrowABatcherErrorInBatchOrder) {
  DataLoader<int, Batch> loader(iota_dataset(40),
                                [](std::vector<int> items, const Device& device) {
                                  if (items.front() == 4) throw std::runtime_error("bad batch 2");
                                  return uneven_batcher(std::move(items), device);
                                },
                                {.batch_size = 2, .num_workers = 3, .prefetch = 3});
  std::vector<Batch> seen;
  try {
    for (Batch& b : loader.epoch())
      seen.push_back(b);
    ADD_FAILURE() << "expected the batcher's error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "bad batch 2");
  }
  EXPECT_EQ(seen, (std::vector<Batch>{{0, 1}, {2, 3}}));
}

TEST(DataLoaderWorkers, RethrowADatasetErrorWithItsType) {
  const DatasetPtr<int> failing = mapped(iota_dataset(10), [](int x) {
    if (x == 7) throw InvalidArgument("[decode] item 7");
    return x;
  });
  DataLoader<int, Batch> loader(failing, uneven_batcher, {.batch_size = 4, .num_workers = 2});
  EXPECT_EQ(test::invalid_argument_message([&] { collect(loader.epoch()); }), "[decode] item 7");
  // The loader stays usable: the failure ended only that epoch.
  for (Batch& b : loader.epoch()) {
    EXPECT_EQ(b, (Batch{0, 1, 2, 3}));
    break;
  }
}

TEST(DataLoaderWorkers, MoreWorkersAndPrefetchThanBatches) {
  DataLoader<int, Batch> loader(
      iota_dataset(3), uneven_batcher,
      {.batch_size = 2, .num_workers = 8, .prefetch = std::numeric_limits<std::size_t>::max()});
  EXPECT_EQ(collect(loader.epoch()), (std::vector<Batch>{{0, 1}, {2}}));
  DataLoader<int, Batch> empty(iota_dataset(0), uneven_batcher, {.num_workers = 2});
  EXPECT_TRUE(collect(empty.epoch()).empty());
}

}  // namespace
}  // namespace ember::data
