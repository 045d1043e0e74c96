// The importer of ONNX's Attention (opsets 23 and 24), written out as ONNX's reference computes
// it: 3-D inputs split into heads, past keys and values prepended, the mask (bool or additive,
// padded to the keys' length), causal and sliding-window masks aligned to the past's length,
// nonpad_kv_seqlen, grouped-query heads repeated, the scale applied to Q and K as its square
// root each, softcap, the softmax (of a row masked everywhere: zeros), and the four outputs.
#include <cmath>
#include <limits>

#include "ember/activation_functions.h"
#include "graph/onnx/onnx_import_util.h"
#include "graph/onnx/onnx_model.h"

namespace ember::detail {
namespace {

constexpr double kMinusInfinity = -std::numeric_limits<double>::infinity();

/// x [B, S, H * D] as [B, H, S, D].
TensorHandle heads_of(const OnnxNode& node, const TensorHandle& x, std::optional<int64_t> heads) {
  if (x.rank() == 4) return x;
  if (x.rank() != 3 || !heads || *heads < 1 || x.shape().dims()[2] % *heads != 0)
    node.fail("3-D inputs need q_num_heads and kv_num_heads dividing their hidden size");
  const auto& d = x.shape().dims();
  return ops::permute(ops::reshape(x, {d[0], d[1], *heads, d[2] / *heads}), {0, 2, 1, 3});
}

/// An additive bias [.., L, S] of 0 where allowed and -inf elsewhere, in dtype.
TensorHandle bias_of(const TensorHandle& allowed, DType dtype) {
  const TensorHandle zeros = ops::cast(ops::bool_not(ops::full_like(allowed, true)), dtype);
  return ops::mask_fill(zeros, ops::bool_not(allowed), kMinusInfinity);
}

/// The attention mask given (input 3) as an additive bias, padded to the keys' length S.
std::optional<TensorHandle> mask_bias(const OnnxNode& node, int64_t kv_length, DType dtype) {
  if (!node.has(3)) return std::nullopt;
  TensorHandle mask = node.tensor(3);
  const int64_t given = mask.shape().dims().back();
  if (given > kv_length) node.fail("attn_mask covers ", given, " keys of ", kv_length);
  if (mask.kind() == TensorKind::Bool) {
    mask = pad_axis(node, mask, static_cast<int64_t>(mask.rank()) - 1, 0, kv_length - given, false);
    return bias_of(mask, dtype);
  }
  return pad_axis(node, ops::cast(mask, dtype), static_cast<int64_t>(mask.rank()) - 1, 0,
                  kv_length - given, kMinusInfinity);
}

/// key - query [.., L, S] with the queries offset by offset (a scalar, or one per batch).
TensorHandle key_minus_query(const OnnxNode& node, int64_t queries, int64_t keys,
                             const TensorHandle& offset) {
  const TensorHandle diff = ops::sub(positions(node, keys, 2, 1), positions(node, queries, 2, 0));
  return ops::sub(diff, offset);  // offset [1] or [B, 1, 1, 1]
}

/// Where the queries sit after the past keys: past's length, or nonpad_kv_seqlen - L per batch.
TensorHandle query_offset(const OnnxNode& node, int64_t past, int64_t queries) {
  const TensorCreationOptions options = TensorCreationOptions(node.device()).with_dtype(DType::I64);
  if (node.has(4) || !node.has(6)) return ops::full(Shape{1}, past, options, TensorKind::Int);
  const TensorHandle lengths = ops::cast(node.tensor(6), DType::I64);
  return ops::reshape(ops::sub_scalar(lengths, queries), {lengths.shape().num_elements(), 1, 1, 1});
}

/// The additive bias of the mask, causality, the sliding window and nonpad_kv_seqlen.
std::optional<TensorHandle> attention_bias(const OnnxNode& node, int64_t queries, int64_t keys,
                                           int64_t past, DType dtype) {
  std::optional<TensorHandle> bias = mask_bias(node, keys, dtype);
  const TensorHandle offset = query_offset(node, past, queries);
  std::optional<TensorHandle> allowed;
  const auto restrict = [&](const TensorHandle& condition) {
    allowed = allowed ? ops::bool_and(*allowed, condition) : condition;
  };
  if (node.attr_int("is_causal", 0) != 0)
    restrict(ops::lower_equal_elem(key_minus_query(node, queries, keys, offset), 0));
  const int64_t left = node.attr_int("left_window_size", -1);
  const int64_t right = node.attr_int("right_window_size", -1);
  if (left >= 0)
    restrict(ops::greater_equal_elem(key_minus_query(node, queries, keys, offset), -left));
  if (right >= 0)
    restrict(ops::lower_equal_elem(key_minus_query(node, queries, keys, offset), right));
  if (node.has(6) && !node.has(4)) {
    const TensorHandle lengths = ops::cast(node.tensor(6), DType::I64);
    const TensorHandle valid =
        ops::lower(positions(node, keys, 4, 3),
                   ops::reshape(lengths, {lengths.shape().num_elements(), 1, 1, 1}));
    restrict(valid);
  }
  if (!allowed) return bias;
  const TensorHandle extra = bias_of(*allowed, dtype);
  return bias ? ops::add(*bias, extra) : extra;
}

/// kv [B, Hk, S, D] with each head repeated reps times in place (NumPy's repeat on axis 1).
TensorHandle repeat_heads(const TensorHandle& kv, int64_t reps) {
  if (reps == 1) return kv;
  const auto& d = kv.shape().dims();
  const TensorHandle wide = ops::expand(ops::unsqueeze_dim(kv, 2), {d[0], d[1], reps, d[2], d[3]});
  return ops::reshape(wide, {d[0], d[1] * reps, d[2], d[3]});
}

/// Softmax over the last dim in which a row of -inf gives zeros, not NaN; each step rounded to
/// x's dtype, the sum as the reference's (reference_sum).
TensorHandle masked_softmax(const TensorHandle& x) {
  const TensorHandle max = ops::max_dim(x, -1);
  const TensorHandle masked = ops::bool_and(ops::is_inf(max), ops::lower_elem(max, 0.0));
  const TensorHandle exps = ops::exp(ops::sub(x, ops::mask_fill(max, masked, 0.0)));
  const TensorHandle sums = reference_sum(exps, static_cast<int64_t>(exps.rank()) - 1);
  return ops::div(exps, ops::mask_fill(sums, ops::equal_elem(sums, 0.0), 1.0));
}

/// Q K^T with the scale applied to each as its square root (as ONNX's reference does), the
/// key heads repeated for grouped queries, then softcap.
TensorHandle scores_of(const OnnxNode& node, const TensorHandle& q, const TensorHandle& k) {
  const double scale = node.has_attribute("scale")
                           ? node.attr_float("scale", 1.0F)
                           : 1.0 / std::sqrt(static_cast<double>(q.shape().dims()[3]));
  const double root = std::sqrt(scale);
  const int64_t groups = q.shape().dims()[1] / k.shape().dims()[1];
  const TensorHandle kt = ops::transpose(ops::mul_scalar(repeat_heads(k, groups), root));
  const TensorHandle qk = ops::matmul(ops::mul_scalar(q, root), kt);
  const double softcap = node.attr_float("softcap", 0.0F);
  if (softcap <= 0) return qk;
  return ops::mul_scalar(ops::tanh(ops::div_scalar(qk, softcap)), softcap);
}

/// The softmax of the biased scores, in softmax_precision when given; zeros in the rows the
/// bias masks everywhere.
TensorHandle probabilities(const OnnxNode& node, const TensorHandle& biased,
                           const std::optional<TensorHandle>& bias) {
  DType precision = biased.dtype();
  if (auto given = node.attr_int("softmax_precision")) {
    const std::optional<DType> d = dtype_of_onnx(static_cast<int32_t>(*given));
    if (!d || kind_of(*d) != TensorKind::Float) node.fail("softmax_precision ", *given);
    precision = *d;
  }
  TensorHandle probs = masked_softmax(ops::cast(biased, precision));
  if (bias) {
    const TensorHandle bias_max = ops::max_dim(*bias, -1);
    probs = ops::mask_fill(
        probs, ops::bool_and(ops::is_inf(bias_max), ops::lower_elem(bias_max, 0.0)), 0.0);
  }
  return ops::cast(probs, biased.dtype());
}

std::vector<OnnxValue> attention(const OnnxNode& node) {
  if (node.has(4) != node.has(5)) node.fail("past_key and past_value come together");
  const TensorHandle q = heads_of(node, node.tensor(0), node.attr_int("q_num_heads"));
  TensorHandle k = heads_of(node, node.tensor(1), node.attr_int("kv_num_heads"));
  TensorHandle v = heads_of(node, node.tensor(2), node.attr_int("kv_num_heads"));
  if (node.has(4) && (node.tensor(4).rank() != 4 || node.tensor(5).rank() != 4))
    node.fail("past_key and past_value must be [batch, heads, length, head size]");
  const int64_t past = node.has(4) ? node.tensor(4).shape().dims()[2] : 0;
  if (node.has(4)) {
    k = ops::cat({node.tensor(4), k}, 2);
    v = ops::cat({node.tensor(5), v}, 2);
  }
  const int64_t hq = q.shape().dims()[1];
  const int64_t hk = k.shape().dims()[1];
  if (hk < 1 || hq % hk != 0) node.fail(hq, " query heads for ", hk, " key heads");
  const TensorHandle qk = scores_of(node, q, k);
  const std::optional<TensorHandle> bias =
      attention_bias(node, q.shape().dims()[2], k.shape().dims()[2], past, q.dtype());
  const TensorHandle biased = bias ? ops::add(qk, *bias) : qk;
  const TensorHandle probs = probabilities(node, biased, bias);
  TensorHandle y = ops::matmul(probs, repeat_heads(v, hq / hk));
  if (node.tensor(0).rank() == 3) {  // back to [B, L, H * D]
    const auto& d = y.shape().dims();
    y = ops::reshape(ops::permute(y, {0, 2, 1, 3}), {d[0], d[2], d[1] * d[3]});
  }
  const int64_t mode = node.attr_int("qk_matmul_output_mode", 0);
  if (mode < 0 || mode > 3) node.fail("qk_matmul_output_mode ", mode);
  const TensorHandle scores = mode == 2 ? biased : mode == 3 ? probs : qk;
  return {{y, false}, {k, false}, {v, false}, {scores, false}};
}

/// The graph attribute name (score_mod, prob_mod) applied to x where the node has it.
TensorHandle modified(const OnnxNode& node, std::string_view name, const TensorHandle& x) {
  if (!node.has_attribute(name)) return x;
  const std::vector<OnnxValue> out = node.run_graph(name, {{x, false}});
  if (out.size() != 1) node.fail(name, " gives ", out.size(), " outputs, not 1");
  return ops::cast(out[0].tensor, x.dtype());
}

/// ai.onnx.preview's FlexAttention as ONNX's reference computes it: the scale's square root
/// applied to Q and K in their dtype, the scores modified by score_mod, the softmax modified by
/// prob_mod, both and the product with V in softmax_precision (by default f32 for the 16-bit
/// floats, else the input's dtype), the result in V's dtype.
std::vector<OnnxValue> flex_attention(const OnnxNode& node) {
  const TensorHandle &q = node.tensor(0), &k = node.tensor(1), &v = node.tensor(2);
  if (q.rank() != 4 || k.rank() != 4 || v.rank() != 4)
    node.fail("Q ", q.shape(), ", K ", k.shape(), " and V ", v.shape(), " must be rank 4");
  const int64_t hq = q.shape().dims()[1], hk = k.shape().dims()[1];
  if (hk < 1 || hq % hk != 0 || v.shape().dims()[1] != hk)
    node.fail(hq, " query heads for ", hk, " key heads");
  const double scale = node.has_attribute("scale")
                           ? node.attr_float("scale", 1.0F)
                           : 1.0 / std::sqrt(static_cast<double>(q.shape().dims()[3]));
  const auto root = static_cast<double>(std::sqrt(static_cast<float>(scale)));
  const TensorHandle kt = ops::transpose(ops::mul_scalar(repeat_heads(k, hq / hk), root));
  const TensorHandle scores = ops::matmul(ops::mul_scalar(q, root), kt);
  DType precision = q.dtype() == DType::F64 ? DType::F64 : DType::F32;
  if (auto given = node.attr_int("softmax_precision")) {
    const std::optional<DType> d = dtype_of_onnx(static_cast<int32_t>(*given));
    if (!d || kind_of(*d) != TensorKind::Float) node.fail("softmax_precision ", *given);
    precision = *d;
  }
  const TensorHandle probs =
      modified(node, "prob_mod",
               ops::softmax(modified(node, "score_mod", ops::cast(scores, precision)), -1));
  const TensorHandle y = ops::matmul(probs, ops::cast(repeat_heads(v, hq / hk), precision));
  return one(ops::cast(y, v.dtype()));
}

/// The two halves a rotary embedding turns as one complex number: alternate entries
/// (interleaved) or the first and second half of the last dim.
std::pair<TensorHandle, TensorHandle> rotary_pairs(const TensorHandle& x, bool interleaved) {
  const int64_t half = x.shape().dims()[3] / 2;
  if (!interleaved) return {ops::narrow(x, 3, 0, half), ops::narrow(x, 3, half, half)};
  const std::vector<Slice> all(3, Slice::all());
  std::vector<Slice> even = all;
  even.emplace_back(0, std::nullopt, 2);
  std::vector<Slice> odd = all;
  odd.emplace_back(1, std::nullopt, 2);
  return {ops::slice(x, even), ops::slice(x, odd)};
}

/// RotaryEmbedding: the first rotary_embedding_dim entries of each head turned by the angles of
/// cos_cache and sin_cache (picked by position_ids where given), the rest kept.
std::vector<OnnxValue> rotary_embedding(const OnnxNode& node) {
  const TensorHandle& input = node.tensor(0);
  const bool four_d = input.rank() == 4;
  TensorHandle x = four_d ? ops::permute(input, {0, 2, 1, 3})
                          : ops::permute(heads_of(node, input, node.attr_int("num_heads")),
                                         {0, 2, 1, 3});  // [B, S, H, D]
  const auto& d = x.shape().dims();
  int64_t dim = node.attr_int("rotary_embedding_dim", 0);
  if (dim == 0) dim = d[3];
  if (dim < 2 || dim > d[3] || dim % 2 != 0)
    node.fail("rotary_embedding_dim ", dim, " for heads of ", d[3]);
  TensorHandle cos = node.tensor(1);
  TensorHandle sin = node.tensor(2);
  if (node.has(3)) {
    const TensorHandle& ids = node.tensor(3);
    const TensorHandle flat = ops::reshape(ids, {ids.shape().num_elements()});
    cos = ops::reshape(ops::select(cos, 0, flat), {d[0], d[1], dim / 2});
    sin = ops::reshape(ops::select(sin, 0, flat), {d[0], d[1], dim / 2});
  }
  cos = ops::unsqueeze_dim(cos, 2);
  sin = ops::unsqueeze_dim(sin, 2);
  const bool interleaved = node.attr_int("interleaved", 0) != 0;
  const TensorHandle turned = ops::narrow(x, 3, 0, dim);
  const auto [x1, x2] = rotary_pairs(turned, interleaved);
  const TensorHandle real = ops::sub(ops::mul(cos, x1), ops::mul(sin, x2));
  const TensorHandle imag = ops::add(ops::mul(sin, x1), ops::mul(cos, x2));
  TensorHandle out = interleaved ? ops::reshape(ops::stack({real, imag}, 4), turned.shape().dims())
                                 : ops::cat({real, imag}, 3);
  if (dim < d[3]) out = ops::cat({out, ops::narrow(x, 3, dim, d[3] - dim)}, 3);
  return one(four_d ? ops::permute(out, {0, 2, 1, 3}) : ops::reshape(out, input.shape().dims()));
}

}  // namespace

void add_attention_importers(OnnxImporters& table) {
  table.insert({
      {"Attention", attention},
      {"RotaryEmbedding", rotary_embedding},
      {"ai.onnx.preview::FlexAttention", flex_attention},
  });
}

}  // namespace ember::detail
