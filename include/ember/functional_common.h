// What the ember::module headers (functional.h, convolution.h, pooling.h, interpolate.h) share: the
// loss reduction, the optional tensor argument of the untyped functions, and the conversions the
// typed wrappers use.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "ember/tensor.h"

namespace ember::module {

/// How a loss reduces its per-element values.
enum class Reduction {
  Mean,
  Sum,
  None,
  /// kl_div only (PyTorch's "batchmean"): the sum divided by the batch size (input's dim 0).
  /// Every other loss throws InvalidArgument "[loss] reduction BatchMean is kl_div's only".
  BatchMean,
};

}  // namespace ember::module

namespace ember::ops {

using OptionalHandle = std::optional<TensorHandle>;

}  // namespace ember::ops

namespace ember::module {

namespace detail {
template <std::size_t D, typename K>
ops::OptionalHandle handle_of(const std::optional<Tensor<D, K>>& t) {
  if (!t) return std::nullopt;
  return t->handle();
}
template <std::size_t D>
std::optional<Tensor<D>> tensor_of(const ops::OptionalHandle& h) {
  if (!h) return std::nullopt;
  return Tensor<D>(*h);
}
template <std::size_t N>
ops::Dims dims_of(const std::array<int64_t, N>& a) {
  return ops::Dims(a.begin(), a.end());
}
}  // namespace detail

}  // namespace ember::module
