// nn::Embedding: a lookup table of vectors (torch.nn.Embedding: names, shape, initialization
// and padding_idx).
//
//   nn::Embedding emb = nn::EmbeddingConfig{10000, 64}.init(device);
//   Tensor<3> vectors = emb.forward(tokens);  // tokens [B, L] (Int) → [B, L, 64]
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "ember/functional.h"
#include "ember/nn/init.h"
#include "ember/nn/module.h"

namespace ember::nn {

/// weight [num_embeddings, embedding_dim]; row padding_idx (when set) starts at zero and gets no
/// gradient, so training never moves it (as PyTorch).
struct Embedding {
  Param<2> weight;
  std::optional<int64_t> padding_idx;  ///< in [0, num_embeddings)
  EMBER_MODULE(weight)

  /// The rows of weight at indices (Int, any rank) → indices' shape + [embedding_dim]. An index
  /// outside [0, num_embeddings) is an InvalidArgument.
  template <std::size_t D>
  Tensor<D + 1> forward(const Tensor<D, Int>& indices) const {
    return Tensor<D + 1>(lookup(indices.handle()));
  }
  /// forward on untyped indices.
  TensorHandle lookup(const TensorHandle& indices) const;
};

/// How to build an Embedding (torch.nn.Embedding's arguments, in its order).
struct EmbeddingConfig {
  int64_t num_embeddings;  ///< >= 1
  int64_t embedding_dim;   ///< >= 1
  /// In [-num_embeddings, num_embeddings) (negative counts from the end); that row is zeroed and
  /// frozen.
  std::optional<int64_t> padding_idx = std::nullopt;
  /// Unset: N(0, 1), PyTorch's default.
  std::optional<Initializer> weight_init = std::nullopt;

  /// InvalidArgument "[Embedding] ..." for a size < 1 or a padding_idx out of range.
  Embedding init(const Device& device) const;
};

}  // namespace ember::nn
