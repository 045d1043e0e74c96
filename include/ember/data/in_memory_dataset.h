// InMemoryDataset: a dataset over a vector of items held in memory.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "ember/data/dataset.h"

namespace ember::data {

template <typename Item>
class InMemoryDataset final : public Dataset<Item> {
 public:
  explicit InMemoryDataset(std::vector<Item> items) : items_(std::move(items)) {}

  /// A copy of items[index]; nullopt past the end.
  std::optional<Item> get(std::size_t index) const override {
    if (index >= items_.size()) return std::nullopt;
    return items_[index];
  }
  std::size_t len() const override { return items_.size(); }

 private:
  std::vector<Item> items_;
};

/// A shared InMemoryDataset holding items.
template <typename Item>
DatasetPtr<Item> in_memory(std::vector<Item> items) {
  return std::make_shared<const InMemoryDataset<Item>>(std::move(items));
}

}  // namespace ember::data
