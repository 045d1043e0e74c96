#include "ember/nn/transformer.h"

#include <cmath>

#include "config_checks.h"
#include "ember/activation_functions.h"

namespace ember::nn {
namespace {

constexpr std::string_view kLayer = "TransformerEncoderLayer";

Tensor<3> activate(TransformerActivation activation, const Tensor<3>& x) {
  return activation == TransformerActivation::Gelu ? activation::gelu(x) : activation::relu(x);
}

/// dropout1(self_attn(x)): the attention branch.
Tensor<3> attention_block(const TransformerEncoderLayer& l, const Tensor<3>& x,
                          const AttentionMasks& masks) {
  return l.dropout1.forward(l.self_attn.forward(x, x, x, masks));
}

/// dropout2(linear2(dropout(activation(linear1(x))))): the feed-forward branch.
Tensor<3> feed_forward_block(const TransformerEncoderLayer& l, const Tensor<3>& x) {
  return l.dropout2.forward(
      l.linear2.forward(l.dropout.forward(activate(l.activation, l.linear1.forward(x)))));
}

}  // namespace

Tensor<3> TransformerEncoderLayer::forward(const Tensor<3>& x, const AttentionMasks& masks) const {
  if (x.dims()[2] != d_model()) {
    detail::fail(kLayer, "x ", x.shape(), " must be [B, L, d_model = ", d_model(), "]");
  }
  if (norm_first) {
    const Tensor<3> attended = x + attention_block(*this, norm1.forward(x), masks);
    return attended + feed_forward_block(*this, norm2.forward(attended));
  }
  const Tensor<3> attended = norm1.forward(x + attention_block(*this, x, masks));
  return norm2.forward(attended + feed_forward_block(*this, attended));
}

TransformerEncoderLayer TransformerEncoderLayerConfig::init(const Device& device) const {
  detail::require_at_least(kLayer, "d_model", d_model, 1);
  detail::require_at_least(kLayer, "nhead", nhead, 1);
  detail::require_at_least(kLayer, "dim_feedforward", dim_feedforward, 1);
  if (d_model % nhead != 0) {
    detail::fail(kLayer, "d_model ", d_model, " is not divisible by nhead ", nhead);
  }
  detail::require_probability(kLayer, "dropout", dropout);
  if (!(std::isfinite(layer_norm_eps) && layer_norm_eps >= 0.0)) {
    detail::fail(kLayer, "layer_norm_eps ", layer_norm_eps, " must be finite and >= 0");
  }
  const LayerNormConfig norm{{d_model}, layer_norm_eps};
  const DropoutConfig drop{dropout};
  return {MultiHeadAttentionConfig{d_model, nhead, dropout}.init(device),
          LinearConfig{d_model, dim_feedforward}.init(device),
          drop.init(device),
          LinearConfig{dim_feedforward, d_model}.init(device),
          norm.init(device),
          norm.init(device),
          drop.init(device),
          drop.init(device),
          activation,
          norm_first};
}

Tensor<3> TransformerEncoder::forward(const Tensor<3>& x, const AttentionMasks& masks) const {
  Tensor<3> y = x;
  for (const TransformerEncoderLayer& layer : layers)
    y = layer.forward(y, masks);
  return norm ? norm->forward(y) : y;
}

TransformerEncoder TransformerEncoderConfig::init(const Device& device) const {
  detail::require_at_least("TransformerEncoder", "num_layers", num_layers, 1);
  TransformerEncoder encoder;
  for (int64_t i = 0; i < num_layers; ++i)
    encoder.layers.push_back(layer.init(device));
  if (final_norm)
    encoder.norm = LayerNormConfig{{layer.d_model}, layer.layer_norm_eps}.init(device);
  return encoder;
}

}  // namespace ember::nn
