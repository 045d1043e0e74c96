// nn::Flatten (torch.nn.Flatten): merges a run of dims into one, e.g. a CNN's [N, C, H, W]
// feature maps into [N, C * H * W] rows for a Linear.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ember/nn/stateless.h"
#include "ember/tensor.h"

namespace ember::nn {

/// Merges dims start_dim..end_dim (inclusive; negative counts from the end).
struct Flatten {
  int64_t start_dim = 1;
  int64_t end_dim = -1;
  EMBER_MODULE()

  /// x of rank D → rank R = D - (end - start), which the caller names as R (the default, 2, is
  /// what the default dims give): `flatten.forward(x)`, `flatten.forward<3>(x)`. InvalidArgument
  /// "[Flatten] ..." when a dim is out of range, start comes after end, or R is not that rank.
  template <std::size_t R = 2, std::size_t D>
  Tensor<R> forward(const Tensor<D>& x) const {
    return Tensor<R>(merge(x.handle(), R));
  }
  /// forward on an untyped x whose result has rank result_rank.
  TensorHandle merge(const TensorHandle& x, std::size_t result_rank) const;
};

/// How to build a Flatten (torch.nn.Flatten's arguments).
struct FlattenConfig {
  int64_t start_dim = 1;
  int64_t end_dim = -1;

  /// The dims are checked against x's rank in forward; this never throws.
  Flatten init(const Device& device) const;
};

}  // namespace ember::nn
