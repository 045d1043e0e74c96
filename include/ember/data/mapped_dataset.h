// MappedDataset: another dataset with a function applied to each item as it is read (decoding,
// augmentation, conversion). The function runs on every get, possibly on several loader threads
// at once, so it must be safe to call concurrently.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

#include "ember/data/checks.h"
#include "ember/data/dataset.h"

namespace ember::data {

template <typename In, typename Out>
class MappedDataset final : public Dataset<Out> {
 public:
  /// InvalidArgument when inner or transform is empty.
  MappedDataset(DatasetPtr<In> inner, std::function<Out(In)> transform)
      : inner_(std::move(inner)), transform_(std::move(transform)) {
    detail::check_not_null(inner_ != nullptr, "MappedDataset", "dataset");
    detail::check_not_null(static_cast<bool>(transform_), "MappedDataset", "transform");
  }

  /// transform(inner.get(index)); nullopt past the end.
  std::optional<Out> get(std::size_t index) const override {
    std::optional<In> item = inner_->get(index);
    if (!item) return std::nullopt;
    return transform_(std::move(*item));
  }
  std::size_t len() const override { return inner_->len(); }

 private:
  DatasetPtr<In> inner_;
  std::function<Out(In)> transform_;
};

/// A shared MappedDataset applying transform to the items of dataset; Out is what transform
/// returns.
template <typename In, typename F>
auto mapped(DatasetPtr<In> dataset, F transform) {
  using Out = std::invoke_result_t<F&, In>;
  return DatasetPtr<Out>(
      std::make_shared<const MappedDataset<In, Out>>(std::move(dataset), std::move(transform)));
}

}  // namespace ember::data
