// DataLoader on the calling thread (num_workers = 0): batching, drop_last, shuffling, epochs,
// argument checks, errors.
#include "ember/data/dataloader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <ranges>
#include <stdexcept>
#include <vector>

#include "data_test_util.h"
#include "ember/data/in_memory_dataset.h"

namespace ember::data {
namespace {

using test::invalid_argument_message;
using Batch = std::vector<int>;
using test::collect;
using test::iota_dataset;

static_assert(std::ranges::input_range<Epoch<Batch>>);

Batch identity_batcher(std::vector<int> items, const Device&) {
  return items;
}

std::vector<int> flatten(const std::vector<Batch>& batches) {
  std::vector<int> items;
  for (const Batch& b : batches)
    items.insert(items.end(), b.begin(), b.end());
  return items;
}

TEST(DataLoader, BatchesTheDatasetInOrder) {
  DataLoader<int, Batch> loader(iota_dataset(10), identity_batcher, {.batch_size = 4});
  EXPECT_EQ(loader.num_items(), 10u);
  EXPECT_EQ(loader.num_batches(), 3u);
  EXPECT_EQ(collect(loader.epoch()), (std::vector<Batch>{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9}}));
}

TEST(DataLoader, DropLastLeavesOutTheIncompleteBatch) {
  DataLoader<int, Batch> loader(iota_dataset(10), identity_batcher,
                                {.batch_size = 4, .drop_last = true});
  EXPECT_EQ(loader.num_items(), 8u);
  EXPECT_EQ(loader.num_batches(), 2u);
  EXPECT_EQ(collect(loader.epoch()), (std::vector<Batch>{{0, 1, 2, 3}, {4, 5, 6, 7}}));

  DataLoader<int, Batch> exact(iota_dataset(8), identity_batcher,
                               {.batch_size = 4, .drop_last = true});
  EXPECT_EQ(exact.num_batches(), 2u);
  EXPECT_EQ(collect(exact.epoch()).size(), 2u);
}

TEST(DataLoader, SmallAndEmptyDatasets) {
  DataLoader<int, Batch> small(iota_dataset(3), identity_batcher, {.batch_size = 5});
  EXPECT_EQ(collect(small.epoch()), (std::vector<Batch>{{0, 1, 2}}));
  DataLoader<int, Batch> dropped(iota_dataset(3), identity_batcher,
                                 {.batch_size = 5, .drop_last = true});
  EXPECT_EQ(dropped.num_batches(), 0u);
  EXPECT_TRUE(collect(dropped.epoch()).empty());
  DataLoader<int, Batch> empty(iota_dataset(0), identity_batcher, {.batch_size = 2});
  EXPECT_EQ(empty.num_batches(), 0u);
  EXPECT_TRUE(collect(empty.epoch()).empty());
}

TEST(DataLoader, AHugeBatchSizeGivesOneBatch) {
  constexpr std::size_t kHuge = std::numeric_limits<std::size_t>::max();
  DataLoader<int, Batch> loader(iota_dataset(3), identity_batcher, {.batch_size = kHuge});
  EXPECT_EQ(loader.num_batches(), 1u);
  EXPECT_EQ(collect(loader.epoch()), (std::vector<Batch>{{0, 1, 2}}));
}

TEST(DataLoader, ShuffleIsReproducibleAndDiffersBetweenEpochs) {
  const DataLoaderOptions options{.batch_size = 3, .shuffle = 99};
  DataLoader<int, Batch> a(iota_dataset(20), identity_batcher, options);
  DataLoader<int, Batch> b(iota_dataset(20), identity_batcher, options);
  const std::vector<int> a0 = flatten(collect(a.epoch()));
  const std::vector<int> a1 = flatten(collect(a.epoch()));
  EXPECT_EQ(a.epochs_started(), 2u);
  EXPECT_EQ(flatten(collect(b.epoch())), a0);
  EXPECT_EQ(flatten(collect(b.epoch())), a1);
  EXPECT_NE(a0, a1);
  std::vector<int> sorted = a0;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(
      sorted,
      flatten(collect(
          DataLoader<int, Batch>(iota_dataset(20), identity_batcher, {.batch_size = 20}).epoch())));
}

TEST(DataLoader, EpochIndexReplaysAnEpoch) {
  DataLoader<int, Batch> loader(iota_dataset(12), identity_batcher,
                                {.batch_size = 5, .shuffle = 4});
  const std::vector<Batch> first = collect(loader.epoch());
  const std::vector<Batch> second = collect(loader.epoch());
  EXPECT_EQ(collect(loader.epoch(1)), second);
  EXPECT_EQ(collect(loader.epoch(0)), first);
  EXPECT_EQ(loader.epochs_started(), 2u);
}

TEST(DataLoader, ShuffledEpochFollowsTheDocumentedPermutation) {
  DataLoader<int, Batch> loader(iota_dataset(9), identity_batcher,
                                {.batch_size = 2, .shuffle = 5, .drop_last = true});
  const std::vector<std::size_t> order = seeded_permutation(9, derive_seed(5, 3));
  std::vector<int> expected(order.begin(), order.begin() + 8);
  EXPECT_EQ(flatten(collect(loader.epoch(3))), expected);
}

TEST(DataLoader, PassesTheDeviceToTheBatcher) {
  const Device device = Device::ndarray();
  DataLoader<int, bool> loader(iota_dataset(2),
                               [&](std::vector<int>, const Device& d) { return d == device; },
                               {.device = device});
  for (bool same : loader.epoch())
    EXPECT_TRUE(same);
}

TEST(DataLoader, DeducesItemAndBatchTypes) {
  DataLoader loader(iota_dataset(4),
                    [](std::vector<int> items, const Device&) {
                      return std::accumulate(items.begin(), items.end(), 0);
                    },
                    {.batch_size = 2});
  static_assert(std::is_same_v<decltype(loader), DataLoader<int, int>>);
  std::vector<int> sums;
  for (int s : loader.epoch())
    sums.push_back(s);
  EXPECT_EQ(sums, (std::vector<int>{1, 5}));
}

TEST(DataLoader, EpochKnowsItsBatchCount) {
  DataLoader<int, Batch> loader(iota_dataset(7), identity_batcher, {.batch_size = 2});
  EXPECT_EQ(loader.epoch().num_batches(), 4u);
}

TEST(DataLoader, RefusesBadOptions) {
  EXPECT_EQ(invalid_argument_message([] {
              DataLoader<int, Batch>(iota_dataset(1), identity_batcher, {.batch_size = 0});
            }),
            "[DataLoader] batch_size must be positive, got 0");
  EXPECT_EQ(invalid_argument_message([] {
              DataLoader<int, Batch>(iota_dataset(1), identity_batcher,
                                     {.num_workers = 2, .prefetch = 0});
            }),
            "[DataLoader] prefetch must be positive, got 0");
  EXPECT_EQ(invalid_argument_message([] { DataLoader<int, Batch>(nullptr, identity_batcher); }),
            "[DataLoader] dataset is null");
  EXPECT_EQ(invalid_argument_message([] { DataLoader<int, Batch>(iota_dataset(1), nullptr); }),
            "[DataLoader] batcher is null");
}

TEST(DataLoader, RethrowsABatcherErrorWhenItsBatchIsDue) {
  DataLoader<int, Batch> loader(iota_dataset(6),
                                [](std::vector<int> items, const Device&) {
                                  if (items.front() == 2) throw std::runtime_error("bad batch");
                                  return items;
                                },
                                {.batch_size = 2});
  std::vector<Batch> seen;
  try {
    for (Batch& b : loader.epoch())
      seen.push_back(b);
    ADD_FAILURE() << "expected the batcher's error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "bad batch");
  }
  EXPECT_EQ(seen, (std::vector<Batch>{{0, 1}}));
}

/// Claims three items but has two.
class ShortDataset final : public Dataset<int> {
 public:
  std::optional<int> get(std::size_t index) const override {
    return index < 2 ? std::optional<int>(0) : std::nullopt;
  }
  std::size_t len() const override { return 3; }
};

TEST(DataLoader, ReportsADatasetThatReturnsNoItemBelowItsLen) {
  DataLoader<int, Batch> loader(std::make_shared<ShortDataset>(), identity_batcher,
                                {.batch_size = 3});
  EXPECT_EQ(invalid_argument_message([&] { collect(loader.epoch()); }),
            "[DataLoader] the dataset returned no item at index 2 although its len is 3");
}

}  // namespace
}  // namespace ember::data
