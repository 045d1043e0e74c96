// Rules of the fused attention ops: Attention (q, k, v and an optional mask → the result and the
// rows' log-sum-exp) and AttentionGrad, which checks the Attention it differentiates and the
// forward values it is given. q, k and v share one float dtype and their batch dims (the public
// function takes the composite where they broadcast); a mask broadcasts to the scores.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ir/op_rules.h"

namespace ember::ir::rules {
namespace {

/// shape with its last `drop` dims removed and `tail` appended.
Shape reshaped_tail(const Shape& shape, std::size_t drop, std::vector<int64_t> tail) {
  std::vector<int64_t> dims(shape.dims().begin(), shape.dims().end() - static_cast<long>(drop));
  dims.insert(dims.end(), tail.begin(), tail.end());
  return Shape(std::move(dims));
}

/// require, with the message prefixed by the three operands: "q [2, 3], k [2, 3], v [2, 3]: ...".
template <typename... Parts>
void require_qkv(bool condition, const Op& op, Inputs in, const Parts&... parts) {
  require(condition, op, "q ", in[0].shape, ", k ", in[1].shape, ", v ", in[2].shape, ": ",
          parts...);
}

void check_qkv(const Op& op, Inputs in) {
  check_dtype(op, in[0].dtype, kFloatDTypes, "q");
  check_same_dtype(op, "q", in[0].dtype, "k", in[1].dtype);
  check_same_dtype(op, "q", in[0].dtype, "v", in[2].dtype);
  const std::size_t rank = in[0].shape.rank();
  require_qkv(rank >= 2 && in[1].shape.rank() == rank && in[2].shape.rank() == rank, op, in,
              "expects one rank >= 2");
  require_qkv(in[0].shape[rank - 1] == in[1].shape[rank - 1], op, in,
              "q and k need one last dim (E)");
  require_qkv(in[1].shape[rank - 2] == in[2].shape[rank - 2], op, in,
              "k and v need one sequence length (S)");
  const Shape batch = reshaped_tail(in[0].shape, 2, {});
  require_qkv(
      reshaped_tail(in[1].shape, 2, {}) == batch && reshaped_tail(in[2].shape, 2, {}) == batch, op,
      in, "batch dims differ");
}

/// The scores' shape [..., L, S].
Shape scores_shape(Inputs in) {
  const std::size_t rank = in[0].shape.rank();
  return reshaped_tail(in[0].shape, 1, {in[1].shape[rank - 2]});
}

void check_mask(const Op& op, Inputs in, const TensorMeta& mask) {
  require(mask.dtype == DType::Bool || mask.dtype == in[0].dtype, op, "mask dtype ", mask.dtype,
          " must be bool or q's dtype ", in[0].dtype);
  const Shape scores = scores_shape(in);
  const std::optional<Shape> broadcast = try_broadcast(mask.shape, scores);
  require(mask.shape.rank() <= scores.rank() && broadcast && *broadcast == scores, op, "mask ",
          mask.shape, " does not broadcast to the scores ", scores);
}

/// The forward outputs (result, lse) after checking q, k, v and the optional mask.
Outputs attention_outputs(const Op& op, Inputs in, bool has_mask) {
  check_qkv(op, in);
  if (has_mask) check_mask(op, in, in[3]);
  const std::size_t rank = in[0].shape.rank();
  Outputs outputs;
  outputs.push_back({reshaped_tail(in[0].shape, 1, {in[2].shape[rank - 1]}), in[0].dtype});
  // f64's backward needs its probabilities to f64's precision: the lse stays f64 there.
  const DType lse = in[0].dtype == DType::F64 ? DType::F64 : DType::F32;
  outputs.push_back({reshaped_tail(in[0].shape, 1, {}), lse});
  return outputs;
}

void check_given(const Op& op, std::string_view role, const TensorMeta& given,
                 const TensorMeta& expected) {
  check_same_dtype(op, role, given.dtype, "forward output", expected.dtype);
  check_same_shape(op, role, given.shape, "forward output", expected.shape);
}

}  // namespace

Outputs infer_rule(const Attention&, const Op& op, Inputs inputs) {
  require(inputs.size() == 3 || inputs.size() == 4, op,
          "expects 3 inputs (q, k, v) or 4 (q, k, v, mask), got ", inputs.size());
  return attention_outputs(op, inputs, inputs.size() == 4);
}

Outputs infer_rule(const AttentionGrad&, const Op& op, Inputs inputs) {
  require(inputs.size() == 6 || inputs.size() == 7, op,
          "expects 6 inputs (q, k, v, out, lse, grad_out) or 7 (with a mask after v), got ",
          inputs.size());
  const bool has_mask = inputs.size() == 7;
  const Outputs forward = attention_outputs(op, inputs, has_mask);
  const std::size_t at = has_mask ? 4 : 3;
  check_given(op, "out", inputs[at], forward[0]);
  check_given(op, "lse", inputs[at + 1], forward[1]);
  check_given(op, "grad_out", inputs[at + 2], forward[0]);
  Outputs outputs;
  for (std::size_t i = 0; i < 3; ++i)
    outputs.push_back(inputs[i]);
  return outputs;
}

}  // namespace ember::ir::rules
