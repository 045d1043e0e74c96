// ShuffledDataset: another dataset read in a fixed random order. The order is
// seeded_permutation(len, seed), drawn once at construction: the same seed gives the same order
// on every platform and every run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "ember/data/checks.h"
#include "ember/data/dataset.h"
#include "ember/data/permutation.h"

namespace ember::data {

template <typename Item>
class ShuffledDataset final : public Dataset<Item> {
 public:
  /// InvalidArgument when inner is null.
  ShuffledDataset(DatasetPtr<Item> inner, uint64_t seed) : inner_(std::move(inner)) {
    detail::check_not_null(inner_ != nullptr, "ShuffledDataset", "dataset");
    order_ = seeded_permutation(inner_->len(), seed);
  }

  /// inner.get(order[index]); nullopt past the end.
  std::optional<Item> get(std::size_t index) const override {
    if (index >= order_.size()) return std::nullopt;
    return inner_->get(order_[index]);
  }
  std::size_t len() const override { return order_.size(); }

 private:
  DatasetPtr<Item> inner_;
  std::vector<std::size_t> order_;
};

/// A shared ShuffledDataset over dataset.
template <typename Item>
DatasetPtr<Item> shuffled(DatasetPtr<Item> dataset, uint64_t seed) {
  return std::make_shared<const ShuffledDataset<Item>>(std::move(dataset), seed);
}

}  // namespace ember::data
