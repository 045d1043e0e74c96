#include "ember/nn/embedding.h"

#include "config_checks.h"

namespace ember::nn {

TensorHandle Embedding::lookup(const TensorHandle& indices) const {
  const TensorHandle rows = ops::embedding(weight.handle(), indices);
  if (!padding_idx) return rows;
  // The rows looked up at padding_idx are replaced by the same values cut from the graph, so no
  // gradient reaches the padding row (PyTorch leaves it out of the weight's gradient).
  const TensorHandle at_padding =
      ops::unsqueeze_dim(ops::equal_elem(indices, Scalar(*padding_idx)), -1);
  return ops::mask_where(rows, at_padding, ops::detach(rows));
}

Embedding EmbeddingConfig::init(const Device& device) const {
  detail::require_at_least("Embedding", "num_embeddings", num_embeddings, 1);
  detail::require_at_least("Embedding", "embedding_dim", embedding_dim, 1);
  Embedding embedding;
  const Initializer rule = weight_init.value_or(Initializer::normal(0.0, 1.0));
  Tensor<2> weight = rule.make<2>({num_embeddings, embedding_dim}, device);
  if (padding_idx) {
    if (*padding_idx < -num_embeddings || *padding_idx >= num_embeddings) {
      detail::fail("Embedding", "padding_idx ", *padding_idx, " must be in [", -num_embeddings,
                   ", ", num_embeddings, ")");
    }
    const int64_t row = *padding_idx < 0 ? *padding_idx + num_embeddings : *padding_idx;
    weight = weight.slice_assign({Slice(row)}, Tensor<2>::zeros({1, embedding_dim}, device));
    embedding.padding_idx = row;
  }
  embedding.weight = Param<2>(weight);
  return embedding;
}

}  // namespace ember::nn
