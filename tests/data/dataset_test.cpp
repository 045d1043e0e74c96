// The dataset types: what each returns, their ends, their argument checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "data_test_util.h"
#include "ember/data/in_memory_dataset.h"
#include "ember/data/mapped_dataset.h"
#include "ember/data/partial_dataset.h"
#include "ember/data/shuffled_dataset.h"
#include "ember/data/window_dataset.h"

namespace ember::data {
namespace {

using test::all_items;
using test::invalid_argument_message;

DatasetPtr<int> numbers(int n) {
  std::vector<int> items(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i)
    items[static_cast<std::size_t>(i)] = 10 * i;
  return in_memory(items);
}

TEST(InMemoryDataset, ReturnsItsItemsThenNothing) {
  const DatasetPtr<std::string> d = in_memory(std::vector<std::string>{"a", "b"});
  EXPECT_EQ(d->len(), 2u);
  EXPECT_FALSE(d->is_empty());
  EXPECT_EQ(d->get(0), "a");
  EXPECT_EQ(d->get(1), "b");
  EXPECT_EQ(d->get(2), std::nullopt);
  EXPECT_TRUE(in_memory(std::vector<int>{})->is_empty());
}

TEST(MappedDataset, AppliesTheFunctionOnGet) {
  const auto d = mapped(numbers(3), [](int x) { return std::to_string(x + 1); });
  static_assert(std::is_same_v<decltype(d), const DatasetPtr<std::string>>);
  EXPECT_EQ(all_items(*d), (std::vector<std::string>{"1", "11", "21"}));
  EXPECT_EQ(d->get(3), std::nullopt);
}

TEST(MappedDataset, RefusesNullArguments) {
  EXPECT_EQ(
      invalid_argument_message([] { MappedDataset<int, int>(nullptr, [](int x) { return x; }); }),
      "[MappedDataset] dataset is null");
  EXPECT_EQ(invalid_argument_message([] { MappedDataset<int, int>(numbers(1), nullptr); }),
            "[MappedDataset] transform is null");
}

TEST(ShuffledDataset, IsAPermutationFixedByTheSeed) {
  const DatasetPtr<int> base = numbers(50);
  const std::vector<int> a = all_items(*shuffled(base, 7));
  EXPECT_EQ(a, all_items(*shuffled(base, 7)));
  EXPECT_NE(a, all_items(*shuffled(base, 8)));
  EXPECT_NE(a, all_items(*base));
  std::vector<int> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, all_items(*base));
  EXPECT_EQ(shuffled(base, 7)->get(50), std::nullopt);
}

TEST(ShuffledDataset, ReadsItemsInTheOrderOfSeededPermutation) {
  const DatasetPtr<int> base = numbers(10);
  const std::vector<std::size_t> order = seeded_permutation(10, 3);
  const DatasetPtr<int> d = shuffled(base, 3);
  for (std::size_t i = 0; i < 10; ++i)
    EXPECT_EQ(d->get(i), 10 * static_cast<int>(order[i]));
}

TEST(PartialDataset, IsARenumberedRange) {
  const DatasetPtr<int> d = partial(numbers(6), 2, 5);
  EXPECT_EQ(all_items(*d), (std::vector<int>{20, 30, 40}));
  EXPECT_EQ(d->get(3), std::nullopt);
  EXPECT_TRUE(partial(numbers(6), 6, 6)->is_empty());
}

TEST(PartialDataset, RefusesARangeOutsideTheDataset) {
  EXPECT_EQ(invalid_argument_message([] { partial(numbers(6), 2, 7); }),
            "[PartialDataset] range [2, 7) is not within a dataset of 6 items");
  EXPECT_EQ(invalid_argument_message([] { partial(numbers(6), 4, 3); }),
            "[PartialDataset] range [4, 3) is not within a dataset of 6 items");
  EXPECT_EQ(invalid_argument_message([] { partial(DatasetPtr<int>(), 0, 0); }),
            "[PartialDataset] dataset is null");
}

TEST(Split, CutsADatasetInTwo) {
  const auto [train, valid] = split(numbers(5), 3);
  EXPECT_EQ(all_items(*train), (std::vector<int>{0, 10, 20}));
  EXPECT_EQ(all_items(*valid), (std::vector<int>{30, 40}));
  EXPECT_EQ(invalid_argument_message([] { split(numbers(5), 6); }),
            "[split] range [0, 6) is not within a dataset of 5 items");
}

TEST(WindowDataset, YieldsEveryRunOfConsecutiveItems) {
  const auto d = windows(numbers(4), 2);
  EXPECT_EQ(all_items(*d), (std::vector<std::vector<int>>{{0, 10}, {10, 20}, {20, 30}}));
  EXPECT_EQ(d->get(3), std::nullopt);
  EXPECT_EQ(windows(numbers(4), 4)->len(), 1u);
  EXPECT_EQ(windows(numbers(3), 4)->len(), 0u);
  EXPECT_EQ(windows(numbers(3), 4)->get(0), std::nullopt);
}

TEST(WindowDataset, RefusesAnEmptyWindow) {
  EXPECT_EQ(invalid_argument_message([] { windows(numbers(3), 0); }),
            "[WindowDataset] window size must be positive, got 0");
}

/// A dataset that claims more items than it has, to check that consumers report it.
class LyingDataset final : public Dataset<int> {
 public:
  std::optional<int> get(std::size_t index) const override {
    return index < 2 ? std::optional<int>(1) : std::nullopt;
  }
  std::size_t len() const override { return 3; }
};

TEST(WindowDataset, ReportsADatasetThatReturnsNoItemBelowItsLen) {
  const auto d = windows(DatasetPtr<int>(std::make_shared<LyingDataset>()), 2);
  EXPECT_EQ(invalid_argument_message([&] { d->get(1); }),
            "[WindowDataset] the dataset returned no item at index 2 although its len is 3");
}

TEST(Datasets, ComposeIntoAShuffledValidationSplit) {
  const auto [train, valid] = split(shuffled(numbers(10), 1), 8);
  std::vector<int> all = all_items(*train);
  const std::vector<int> rest = all_items(*valid);
  all.insert(all.end(), rest.begin(), rest.end());
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, all_items(*numbers(10)));
}

}  // namespace
}  // namespace ember::data
