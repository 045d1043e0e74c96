// PartialDataset: the items [start, end) of another dataset, renumbered from 0; and split, which
// cuts a dataset in two (a train / validation split: shuffle first for a random one).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <utility>

#include "ember/data/checks.h"
#include "ember/data/dataset.h"

namespace ember::data {

template <typename Item>
class PartialDataset final : public Dataset<Item> {
 public:
  /// InvalidArgument when inner is null or unless start <= end <= inner.len().
  PartialDataset(DatasetPtr<Item> inner, std::size_t start, std::size_t end)
      : inner_(std::move(inner)), start_(start), end_(end) {
    detail::check_not_null(inner_ != nullptr, "PartialDataset", "dataset");
    detail::check_range(start_, end_, inner_->len(), "PartialDataset");
  }

  /// inner.get(start + index); nullopt past the end of the range.
  std::optional<Item> get(std::size_t index) const override {
    if (index >= len()) return std::nullopt;
    return inner_->get(start_ + index);
  }
  std::size_t len() const override { return end_ - start_; }

 private:
  DatasetPtr<Item> inner_;
  std::size_t start_;
  std::size_t end_;
};

/// A shared PartialDataset of the items [start, end) of dataset.
template <typename Item>
DatasetPtr<Item> partial(DatasetPtr<Item> dataset, std::size_t start, std::size_t end) {
  return std::make_shared<const PartialDataset<Item>>(std::move(dataset), start, end);
}

/// Two datasets, the first first_len items of dataset and the rest; InvalidArgument when
/// first_len > dataset.len(). For a random validation set: split(shuffled(d, seed), n).
template <typename Item>
std::pair<DatasetPtr<Item>, DatasetPtr<Item>> split(const DatasetPtr<Item>& dataset,
                                                    std::size_t first_len) {
  detail::check_not_null(dataset != nullptr, "split", "dataset");
  const std::size_t len = dataset->len();
  detail::check_range(0, first_len, len, "split");
  return {partial(dataset, 0, first_len), partial(dataset, first_len, len)};
}

}  // namespace ember::data
