// WindowDataset: the windows of size consecutive items of another dataset, one per start index
// (item i is {inner[i], ..., inner[i + size - 1]}), as for sequence models. A dataset shorter
// than size has no window.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "ember/data/checks.h"
#include "ember/data/dataset.h"

namespace ember::data {

template <typename Item>
class WindowDataset final : public Dataset<std::vector<Item>> {
 public:
  /// InvalidArgument when inner is null or size is 0.
  WindowDataset(DatasetPtr<Item> inner, std::size_t size) : inner_(std::move(inner)), size_(size) {
    detail::check_not_null(inner_ != nullptr, "WindowDataset", "dataset");
    detail::check_positive(size_, "WindowDataset", "window size");
  }

  /// The window starting at inner item index; nullopt past the end.
  std::optional<std::vector<Item>> get(std::size_t index) const override {
    if (index >= len()) return std::nullopt;
    std::vector<Item> window;
    window.reserve(size_);
    for (std::size_t i = index; i < index + size_; ++i) {
      std::optional<Item> item = inner_->get(i);
      if (!item) detail::fail_missing_item(i, inner_->len(), "WindowDataset");
      window.push_back(std::move(*item));
    }
    return window;
  }
  /// inner.len() - size + 1, or 0 when inner is shorter than a window.
  std::size_t len() const override {
    const std::size_t n = inner_->len();
    return n < size_ ? 0 : n - size_ + 1;
  }

 private:
  DatasetPtr<Item> inner_;
  std::size_t size_;
};

/// A shared WindowDataset of the windows of size items of dataset.
template <typename Item>
DatasetPtr<std::vector<Item>> windows(DatasetPtr<Item> dataset, std::size_t size) {
  return std::make_shared<const WindowDataset<Item>>(std::move(dataset), size);
}

}  // namespace ember::data
