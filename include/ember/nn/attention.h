// nn::MultiHeadAttention: torch.nn.MultiheadAttention with batch_first=True (names, shapes,
// masks and initialization), built on module::scaled_dot_product_attention.
//
// Layout: query [B, L, E], key and value [B, S, E] (batch first; L queries, S keys). Keys and
// values have the query's embedding size (PyTorch's kdim = vdim = embed_dim), so the three
// projections live in one in_proj_weight, as PyTorch stores them.
#pragma once

#include <cstdint>
#include <optional>

#include "ember/nn/linear.h"
#include "ember/nn/module.h"
#include "ember/nn/param.h"
#include "ember/tensor.h"

namespace ember::nn {

/// The positions attention must not look at, in PyTorch's convention: true = ignore. A query
/// whose every key is ignored gets NaN, as in PyTorch.
struct AttentionMasks {
  /// [B, S]: true marks a padding key that no query of that sequence attends to.
  std::optional<Tensor<2, Bool>> key_padding_mask = std::nullopt;
  /// [L, S]: true forbids query i to attend to key j (PyTorch's Bool attn_mask).
  std::optional<Tensor<2, Bool>> attn_mask = std::nullopt;
  /// Query i attends to keys j <= i only (combines with the masks above).
  bool is_causal = false;
};

/// The attended values and the attention weights averaged over the heads.
struct AttentionOutput {
  Tensor<3> output;   ///< [B, L, E]
  Tensor<3> weights;  ///< [B, L, S], each row a distribution over the keys (after dropout)
};

/// in_proj_weight [3E, E] holds the query, key and value projections stacked in that order,
/// in_proj_bias [3E] their biases, out_proj the output projection (PyTorch's names and layout,
/// so a PyTorch state_dict loads).
struct MultiHeadAttention {
  Param<2> in_proj_weight;
  std::optional<Param<1>> in_proj_bias;
  Linear out_proj;
  int64_t num_heads = 1;
  /// The probability of dropping an attention weight, in training.
  double dropout = 0.0;
  bool training = true;
  EMBER_MODULE(in_proj_weight, in_proj_bias, out_proj)

  int64_t embed_dim() const { return in_proj_weight->dims()[1]; }

  /// query [B, L, E], key and value [B, S, E] → [B, L, E]. Self-attention: pass x three times.
  /// InvalidArgument "[MultiHeadAttention] ..." for shapes that do not fit together.
  Tensor<3> forward(const Tensor<3>& query, const Tensor<3>& key, const Tensor<3>& value,
                    const AttentionMasks& masks = {}) const;
  /// forward, plus the attention weights averaged over the heads (PyTorch's need_weights=True,
  /// average_attn_weights=True).
  AttentionOutput forward_with_weights(const Tensor<3>& query, const Tensor<3>& key,
                                       const Tensor<3>& value,
                                       const AttentionMasks& masks = {}) const;
};

/// How to build a MultiHeadAttention: `nn::MultiHeadAttentionConfig{64, 8}.init(device)`.
/// PyTorch's initialization: in_proj_weight Xavier-uniform, in_proj_bias and out_proj.bias
/// zero, out_proj.weight as a Linear's.
struct MultiHeadAttentionConfig {
  int64_t embed_dim;
  int64_t num_heads;
  double dropout = 0.0;
  /// Whether in_proj and out_proj have biases.
  bool bias = true;

  /// InvalidArgument "[MultiHeadAttention] ..." for embed_dim or num_heads < 1, embed_dim not
  /// divisible by num_heads, or dropout outside [0, 1).
  MultiHeadAttention init(const Device& device) const;
};

}  // namespace ember::nn
