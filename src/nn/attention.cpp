#include "ember/nn/attention.h"

#include <array>

#include "config_checks.h"
#include "ember/functional.h"
#include "ember/nn/init.h"

namespace ember::nn {
namespace {

constexpr std::string_view kLayer = "MultiHeadAttention";

void check_inputs(int64_t embed_dim, const Tensor<3>& query, const Tensor<3>& key,
                  const Tensor<3>& value, const AttentionMasks& masks) {
  const auto [batch, queries, query_dim] = query.dims();
  const auto [key_batch, keys, key_dim] = key.dims();
  if (query_dim != embed_dim || key_dim != embed_dim || key_batch != batch ||
      value.dims() != key.dims()) {
    detail::fail(kLayer, "query ", query.shape(), ", key ", key.shape(), " and value ",
                 value.shape(), " must be [B, L, ", embed_dim, "], [B, S, ", embed_dim,
                 "] and [B, S, ", embed_dim, "]");
  }
  if (masks.key_padding_mask && masks.key_padding_mask->dims() != std::array{batch, keys}) {
    detail::fail(kLayer, "key_padding_mask ", masks.key_padding_mask->shape(),
                 " must be [B, S] = [", batch, ", ", keys, "]");
  }
  if (masks.attn_mask && masks.attn_mask->dims() != std::array{queries, keys}) {
    detail::fail(kLayer, "attn_mask ", masks.attn_mask->shape(), " must be [L, S] = [", queries,
                 ", ", keys, "]");
  }
}

/// x projected by the part-th block of in_proj (0 query, 1 key, 2 value).
Tensor<3> project(const MultiHeadAttention& m, const Tensor<3>& x, int64_t part) {
  const int64_t e = m.embed_dim();
  std::optional<Tensor<1>> bias;
  if (m.in_proj_bias) bias = (*m.in_proj_bias)->narrow(0, part * e, e);
  return module::linear(x, m.in_proj_weight->narrow(0, part * e, e), bias);
}

/// [B, L, E] → [B, heads, L, E / heads].
Tensor<4> split_heads(const Tensor<3>& x, int64_t heads) {
  const auto [batch, length, e] = x.dims();
  return x.reshape<4>({batch, length, heads, e / heads}).swap_dims(1, 2);
}

/// [B, heads, L, D] → [B, L, heads * D].
Tensor<3> merge_heads(const Tensor<4>& x) {
  const auto [batch, heads, length, head_dim] = x.dims();
  return x.swap_dims(1, 2).reshape<3>({batch, length, heads * head_dim});
}

/// [L, S]: true where key j comes after query i.
Tensor<2, Bool> later_keys(int64_t queries, int64_t keys, const Device& device) {
  const auto rows = Tensor<1, Int>::arange(0, queries, device).reshape<2>({queries, 1});
  const auto cols = Tensor<1, Int>::arange(0, keys, device).reshape<2>({1, keys});
  return cols.greater(rows);
}

/// scaled_dot_product_attention's mask (true = attend), [B or 1, 1, L, S], from masks
/// (true = ignore); nullopt when nothing is masked.
std::optional<Tensor<4, Bool>> attend_mask(const AttentionMasks& masks, int64_t queries,
                                           int64_t keys, const Device& device) {
  std::optional<Tensor<4, Bool>> ignored;
  const auto ignore = [&ignored](const Tensor<4, Bool>& more) {
    ignored = ignored ? ignored->bool_or(more) : more;
  };
  if (masks.attn_mask) ignore(masks.attn_mask->unsqueeze<4>());
  if (masks.key_padding_mask) {
    ignore(masks.key_padding_mask->reshape<4>({masks.key_padding_mask->dims()[0], 1, 1, keys}));
  }
  if (masks.is_causal) ignore(later_keys(queries, keys, device).unsqueeze<4>());
  if (!ignored) return std::nullopt;
  return ignored->bool_not();
}

/// [v | I]: v [B, H, S, D] followed by the identity along the last dim → [B, H, S, D + S].
/// Note: attending over [v | I] yields [weights v | weights], so the weights come out of the
/// very call that computes the output, with the same mask and the same dropout draw.
Tensor<4> append_identity(const Tensor<4>& v) {
  const auto [batch, heads, keys, head_dim] = v.dims();
  const Tensor<4> identity =
      Tensor<2>::eye(keys, TensorCreationOptions(v.device()).with_dtype(v.dtype()))
          .unsqueeze<4>()
          .expand<4>({batch, heads, keys, keys});
  return Tensor<4>::cat({v, identity}, 3);
}

struct Attended {
  Tensor<3> output;
  std::optional<Tensor<3>> weights;
};

Attended attend(const MultiHeadAttention& m, const Tensor<3>& query, const Tensor<3>& key,
                const Tensor<3>& value, const AttentionMasks& masks, bool with_weights) {
  check_inputs(m.embed_dim(), query, key, value, masks);
  const int64_t queries = query.dims()[1];
  const int64_t keys = key.dims()[1];
  const Tensor<4> q = split_heads(project(m, query, 0), m.num_heads);
  const Tensor<4> k = split_heads(project(m, key, 1), m.num_heads);
  const Tensor<4> v = split_heads(project(m, value, 2), m.num_heads);
  const std::optional<Tensor<4, Bool>> mask = attend_mask(masks, queries, keys, query.device());
  const double dropout = m.training ? m.dropout : 0.0;
  const Tensor<4> heads = module::scaled_dot_product_attention(
      q, k, with_weights ? append_identity(v) : v, mask, false, dropout);
  if (!with_weights) return {m.out_proj.forward(merge_heads(heads)), std::nullopt};
  const int64_t head_dim = v.dims()[3];
  return {m.out_proj.forward(merge_heads(heads.narrow(3, 0, head_dim))),
          heads.narrow(3, head_dim, keys).mean_dim(1).squeeze<3>(1)};
}

}  // namespace

Tensor<3> MultiHeadAttention::forward(const Tensor<3>& query, const Tensor<3>& key,
                                      const Tensor<3>& value, const AttentionMasks& masks) const {
  return attend(*this, query, key, value, masks, false).output;
}

AttentionOutput MultiHeadAttention::forward_with_weights(const Tensor<3>& query,
                                                         const Tensor<3>& key,
                                                         const Tensor<3>& value,
                                                         const AttentionMasks& masks) const {
  Attended attended = attend(*this, query, key, value, masks, true);
  return {attended.output, *attended.weights};
}

MultiHeadAttention MultiHeadAttentionConfig::init(const Device& device) const {
  detail::require_at_least(kLayer, "embed_dim", embed_dim, 1);
  detail::require_at_least(kLayer, "num_heads", num_heads, 1);
  if (embed_dim % num_heads != 0) {
    detail::fail(kLayer, "embed_dim ", embed_dim, " is not divisible by num_heads ", num_heads);
  }
  detail::require_probability(kLayer, "dropout", dropout);
  MultiHeadAttention m;
  m.in_proj_weight =
      Param<2>(Initializer::xavier_uniform().make<2>({3 * embed_dim, embed_dim}, device));
  if (bias) m.in_proj_bias = Param<1>(Initializer::zeros().make<1>({3 * embed_dim}, device));
  m.out_proj =
      LinearConfig{embed_dim, embed_dim, bias, std::nullopt, Initializer::zeros()}.init(device);
  m.num_heads = num_heads;
  m.dropout = dropout;
  return m;
}

}  // namespace ember::nn
