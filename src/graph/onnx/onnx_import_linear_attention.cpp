// Importer of ONNX's LinearAttention: the recurrence written out step by step, as ONNX's
// reference runs it, in f32: per step the state [B, H_kv, d_k, d_v] is decayed by exp(decay)
// (gated rules), the value corrected by what the state already retrieves for the key, times beta
// (delta rules), the outer product of key and value added, and the query read from the state
// (its heads repeated for grouped queries). The graph grows with the sequence length: a few ops
// per step.
#include <cmath>

#include "graph/onnx/onnx_import_util.h"

namespace ember::detail {
namespace {

/// x [B, T, H * D] as [B, H, T, D], f32.
TensorHandle heads(const OnnxNode& node, const TensorHandle& x, int64_t h, std::string_view what) {
  const std::vector<int64_t>& d = x.shape().dims();
  if (x.rank() != 3 || h < 1 || d[2] % h != 0)
    node.fail(what, " ", x.shape(), " is not [B, T, ", h, " * D]");
  return ops::cast(ops::permute(ops::reshape(x, {d[0], d[1], h, d[2] / h}), {0, 2, 1, 3}),
                   DType::F32);
}

/// The update rule's parts: decay (gated) and beta (delta).
struct Rule {
  bool gated, delta;
};

Rule rule_of(const OnnxNode& node) {
  const std::string rule = node.attr_string("update_rule", "gated_delta");
  if (rule != "linear" && rule != "gated" && rule != "delta" && rule != "gated_delta")
    node.fail("update_rule '", rule, "' (linear, gated, delta, gated_delta)");
  const Rule r{rule.starts_with("gated"), rule.ends_with("delta")};
  if (r.gated != node.has(4)) node.fail("update_rule '", rule, "' and the decay input disagree");
  if (r.delta != node.has(5)) node.fail("update_rule '", rule, "' and the beta input disagree");
  return r;
}

/// decay [B, T, H] or [B, T, H * d_k] as [B, H, T, 1 or d_k]; beta [B, T, H or 1] as
/// [B, H or 1, T, 1].
TensorHandle per_head(const OnnxNode& node, std::size_t k, int64_t h, int64_t width,
                      std::string_view what) {
  const TensorHandle& x = node.tensor(k);
  const std::vector<int64_t>& d = x.shape().dims();
  if (x.rank() != 3 || (d[2] != h && d[2] != h * width))
    node.fail(what, " ", x.shape(), " is not [B, T, ", h, "] or [B, T, ", h * width, "]");
  return heads(node, x, h, what);
}

std::vector<OnnxValue> linear_attention(const OnnxNode& node) {
  const Rule rule = rule_of(node);
  const int64_t hq = node.attr_int("q_num_heads", 0), hk = node.attr_int("kv_num_heads", 0);
  if (hq < 1 || hk < 1 || hq % hk != 0)
    node.fail("q_num_heads ", hq, " must be a positive multiple of kv_num_heads ", hk);
  const TensorHandle q = heads(node, node.tensor(0), hq, "query");
  const TensorHandle k = heads(node, node.tensor(1), hk, "key");
  const TensorHandle v = heads(node, node.tensor(2), hk, "value");
  const std::vector<int64_t>& qd = q.shape().dims();
  const int64_t b = qd[0], t = qd[2], dk = qd[3], dv = v.shape().dims()[3];
  if (k.shape().dims() != std::vector<int64_t>{b, hk, t, dk} || v.shape().dims()[2] != t)
    node.fail("query, key and value do not fit one another");
  const std::vector<int64_t> state_dims{b, hk, dk, dv};
  TensorHandle state =
      ops::zeros(Shape(state_dims), TensorCreationOptions(node.device()).with_dtype(DType::F32),
                 TensorKind::Float);
  DType state_dtype = node.tensor(0).dtype();
  if (node.has(3)) {
    if (node.tensor(3).shape().dims() != state_dims)
      node.fail("past_state ", node.tensor(3).shape(), " is not ", Shape(state_dims));
    state = ops::cast(node.tensor(3), DType::F32);
    state_dtype = node.tensor(3).dtype();
  }
  const std::optional<TensorHandle> decay =
      rule.gated ? std::optional(per_head(node, 4, hk, dk, "decay")) : std::nullopt;
  std::optional<TensorHandle> beta;
  if (rule.delta) {
    const int64_t given = node.tensor(5).shape().dims().back();
    if (given != hk && given != 1) node.fail("beta's last dim ", given, " is not ", hk, " or 1");
    beta = heads(node, node.tensor(5), given, "beta");
  }
  const double scale = node.attr_float("scale", 0.0F) != 0.0F
                           ? node.attr_float("scale", 0.0F)
                           : 1.0 / std::sqrt(static_cast<double>(dk));
  const int64_t group = hq / hk;
  std::vector<TensorHandle> outputs;
  for (int64_t i = 0; i < t; ++i) {
    const TensorHandle k_t = ops::narrow(k, 2, i, 1);  // [B, H_kv, 1, d_k]
    TensorHandle v_t = ops::narrow(v, 2, i, 1);        // [B, H_kv, 1, d_v]
    if (decay)
      state = ops::mul(state, ops::exp(ops::swap_dims(ops::narrow(*decay, 2, i, 1), 2, 3)));
    if (beta) v_t = ops::mul(ops::narrow(*beta, 2, i, 1), ops::sub(v_t, ops::matmul(k_t, state)));
    state = ops::add(state, ops::mul(ops::swap_dims(k_t, 2, 3), v_t));
    const TensorHandle read =
        group == 1 ? state
                   : ops::reshape(ops::expand(ops::unsqueeze_dim(state, 2), {b, hk, group, dk, dv}),
                                  {b, hq, dk, dv});
    outputs.push_back(ops::mul_scalar(ops::matmul(ops::narrow(q, 2, i, 1), read), scale));
  }
  const TensorHandle all =
      t == 0 ? ops::zeros(Shape{b, hq, 0, dv},
                          TensorCreationOptions(node.device()).with_dtype(DType::F32),
                          TensorKind::Float)
             : ops::cat(outputs, 2);
  const TensorHandle y = ops::reshape(ops::permute(all, {0, 2, 1, 3}), {b, t, hq * dv});
  return {{ops::cast(y, node.tensor(0).dtype()), false}, {ops::cast(state, state_dtype), false}};
}

}  // namespace

void add_linear_attention_importers(OnnxImporters& table) {
  table.insert({{"LinearAttention", linear_attention}});
}

}  // namespace ember::detail
