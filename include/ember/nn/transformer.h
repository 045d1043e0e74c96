// nn::TransformerEncoderLayer and nn::TransformerEncoder: torch.nn's with batch_first=True
// (member names, defaults, initialization and forward), so a PyTorch state_dict loads.
//
// Layout: x [B, L, d_model] (batch first). The masks are MultiHeadAttention's (attention.h):
// PyTorch's src_mask is masks.attn_mask, src_key_padding_mask is masks.key_padding_mask, both
// true = ignore.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ember/nn/attention.h"
#include "ember/nn/dropout.h"
#include "ember/nn/linear.h"
#include "ember/nn/module.h"
#include "ember/nn/normalization.h"

namespace ember::nn {

/// The feed-forward block's activation (PyTorch's activation="relu" or "gelu", the exact GELU).
enum class TransformerActivation { Relu, Gelu };

/// Self-attention then a feed-forward block, each with dropout and a residual connection.
/// Post-norm (norm_first false, PyTorch's default):
///   x = norm1(x + dropout1(self_attn(x))); x = norm2(x + dropout2(ff(x)))
/// Pre-norm (norm_first true):
///   x = x + dropout1(self_attn(norm1(x))); x = x + dropout2(ff(norm2(x)))
/// with ff(x) = linear2(dropout(activation(linear1(x)))).
struct TransformerEncoderLayer {
  MultiHeadAttention self_attn;
  Linear linear1;  ///< d_model → dim_feedforward
  Dropout dropout;
  Linear linear2;  ///< dim_feedforward → d_model
  LayerNorm norm1;
  LayerNorm norm2;
  Dropout dropout1;
  Dropout dropout2;
  TransformerActivation activation = TransformerActivation::Relu;
  bool norm_first = false;
  EMBER_MODULE(self_attn, linear1, dropout, linear2, norm1, norm2, dropout1, dropout2)

  int64_t d_model() const { return self_attn.embed_dim(); }

  /// x [B, L, d_model] → [B, L, d_model]. InvalidArgument "[TransformerEncoderLayer] ..." for x
  /// of another d_model; the masks are checked as MultiHeadAttention::forward checks them.
  Tensor<3> forward(const Tensor<3>& x, const AttentionMasks& masks = {}) const;
};

/// How to build a TransformerEncoderLayer (torch.nn.TransformerEncoderLayer's arguments and
/// defaults): `nn::TransformerEncoderLayerConfig{512, 8}.init(device)`.
struct TransformerEncoderLayerConfig {
  int64_t d_model;
  int64_t nhead;
  int64_t dim_feedforward = 2048;
  /// Of the attention weights, inside the feed-forward block and on both residual branches.
  double dropout = 0.1;
  TransformerActivation activation = TransformerActivation::Relu;
  double layer_norm_eps = 1e-5;
  bool norm_first = false;

  /// InvalidArgument "[TransformerEncoderLayer] ..." for d_model, nhead or dim_feedforward < 1,
  /// d_model not divisible by nhead, dropout outside [0, 1), or a bad layer_norm_eps.
  TransformerEncoderLayer init(const Device& device) const;
};

/// A stack of encoder layers, then the optional final norm.
struct TransformerEncoder {
  std::vector<TransformerEncoderLayer> layers;
  std::optional<LayerNorm> norm;
  EMBER_MODULE(layers, norm)

  /// x [B, L, d_model] through every layer with the same masks → [B, L, d_model].
  Tensor<3> forward(const Tensor<3>& x, const AttentionMasks& masks = {}) const;
};

/// How to build a TransformerEncoder: `nn::TransformerEncoderConfig{{512, 8}, 6}.init(device)`.
/// Note: PyTorch deep-copies one layer num_layers times, so its layers start equal; here each
/// layer is initialized on its own (same distributions, independent draws).
struct TransformerEncoderConfig {
  TransformerEncoderLayerConfig layer;
  int64_t num_layers;
  /// Adds `norm`, a LayerNorm(d_model, layer_norm_eps) after the last layer (PyTorch's norm
  /// argument).
  bool final_norm = false;

  /// InvalidArgument "[TransformerEncoder] ..." for num_layers < 1; the layer's errors as
  /// TransformerEncoderLayerConfig::init.
  TransformerEncoder init(const Device& device) const;
};

}  // namespace ember::nn
