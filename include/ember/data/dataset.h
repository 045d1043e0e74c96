// Dataset<Item>: an indexed, read-only collection of items, the input of a DataLoader. Datasets
// are shared between loaders, wrappers and threads as DatasetPtr<Item> (a shared_ptr to const):
// get and len are const and must be safe to call from several threads at once, which every
// dataset in ember::data is (they are immutable once built).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>

namespace ember::data {

template <typename Item>
class Dataset {
 public:
  using item_type = Item;

  virtual ~Dataset() = default;
  /// The item at index, or nullopt when index >= len().
  virtual std::optional<Item> get(std::size_t index) const = 0;
  /// The number of items; get(i) returns an item for every i < len().
  virtual std::size_t len() const = 0;
  bool is_empty() const { return len() == 0; }
};

/// How datasets are held and shared.
template <typename Item>
using DatasetPtr = std::shared_ptr<const Dataset<Item>>;

}  // namespace ember::data
