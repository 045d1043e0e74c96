// Rules of the fused row ops: LayerNorm (layer_norm and rms_norm over the last dim), CrossEntropy
// (a loss per row of logits [M, C]) and their gradient ops, which check the forward op they
// differentiate and the forward values they are given. The statistics (mean, rstd, lse) are f32,
// f64 for f64 inputs.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ir/op_rules.h"

namespace ember::ir::rules {
namespace {

DType statistic_dtype(DType x) {
  return x == DType::F64 ? DType::F64 : DType::F32;
}

/// x's shape without its last dim: one value per row.
Shape rows_of(const Shape& x) {
  return Shape(std::vector<int64_t>(x.dims().begin(), x.dims().end() - 1));
}

/// Requires given to have expected's dtype and shape ("mean: ...").
void check_given(const Op& op, std::string_view role, const TensorMeta& given,
                 const TensorMeta& expected) {
  check_same_dtype(op, role, given.dtype, "its forward value", expected.dtype);
  check_same_shape(op, role, given.shape, "its forward value", expected.shape);
}

/// How many inputs a LayerNorm takes: x and its affine parameters.
std::size_t norm_arity(const LayerNorm& norm) {
  return 1 + (norm.weight ? 1 : 0) + (norm.bias ? 1 : 0);
}

/// Checks x and the affine parameters at inputs[0, norm_arity), returns the forward's outputs.
Outputs norm_outputs(const LayerNorm& norm, const Op& op, Inputs in) {
  require(!(norm.rms && norm.bias), op, "rms_norm takes no bias");
  const TensorMeta& x = in[0];
  check_dtype(op, x.dtype, kFloatDTypes, "x");
  require(x.shape.rank() >= 1, op, "x ", x.shape, " needs a dim to normalize");
  const int64_t n = x.shape[x.shape.rank() - 1];
  for (std::size_t i = 1; i < norm_arity(norm); ++i) {
    const std::string_view role = i == 1 && norm.weight ? "weight" : "bias";
    check_same_dtype(op, "x", x.dtype, role, in[i].dtype);
    check_same_shape(op, role, in[i].shape, "x's last dim", Shape{n});
  }
  Outputs outputs;
  outputs.push_back(x);
  const TensorMeta statistic{rows_of(x.shape), statistic_dtype(x.dtype)};
  if (!norm.rms) outputs.push_back(statistic);
  outputs.push_back(statistic);
  return outputs;
}

/// How many inputs a CrossEntropy takes: logits, targets and the optional class weights.
std::size_t loss_arity(const CrossEntropy& loss) {
  return loss.weight ? 3 : 2;
}

/// Checks logits, targets and the weights at inputs[0, loss_arity), returns (loss, lse).
Outputs loss_outputs(const CrossEntropy& loss, const Op& op, Inputs in) {
  const TensorMeta& logits = in[0];
  check_dtype(op, logits.dtype, kFloatDTypes, "logits");
  check_dtype(op, in[1].dtype, kIntDTypes, "targets");
  require(logits.shape.rank() == 2, op, "logits ", logits.shape, " must be [M, C]");
  require(in[1].shape == rows_of(logits.shape), op, "targets ", in[1].shape,
          " must be [M] for logits ", logits.shape);
  require(loss.label_smoothing >= 0.0 && loss.label_smoothing <= 1.0, op, "label_smoothing ",
          loss.label_smoothing, " is outside [0, 1]");
  if (loss.weight) {
    check_same_dtype(op, "logits", logits.dtype, "weight", in[2].dtype);
    check_same_shape(op, "weight", in[2].shape, "classes", Shape{logits.shape[1]});
  }
  Outputs outputs;
  outputs.push_back({in[1].shape, logits.dtype});
  outputs.push_back({in[1].shape, statistic_dtype(logits.dtype)});
  return outputs;
}

}  // namespace

Outputs infer_rule(const LayerNorm& norm, const Op& op, Inputs inputs) {
  check_arity(op, inputs, norm_arity(norm));
  return norm_outputs(norm, op, inputs);
}

Outputs infer_rule(const LayerNormGrad& grad, const Op& op, Inputs inputs) {
  const LayerNorm& norm = grad.norm;
  // x[, weight], the statistics, grad_y: the bias is not needed.
  const std::size_t given = norm.weight ? 2 : 1;
  const std::size_t statistics = norm.rms ? 1 : 2;
  check_arity(op, inputs, given + statistics + 1);
  std::vector<TensorMeta> forward_in(inputs.begin(), inputs.begin() + static_cast<long>(given));
  // The bias the forward took is shaped as one row of x.
  require(inputs[0].shape.rank() >= 1, op, "x ", inputs[0].shape, " needs a dim to normalize");
  if (norm.bias) forward_in.push_back({Shape{inputs[0].shape.dims().back()}, inputs[0].dtype});
  const Outputs forward = norm_outputs(norm, op, forward_in);
  for (std::size_t k = 0; k < statistics; ++k)
    check_given(op, k + 1 < statistics ? "mean" : "rstd", inputs[given + k], forward[1 + k]);
  check_given(op, "grad_y", inputs[given + statistics], forward[0]);
  Outputs outputs;
  for (std::size_t i = 0; i < norm_arity(norm); ++i)
    outputs.push_back(forward_in[i]);
  return outputs;
}

Outputs infer_rule(const CrossEntropy& loss, const Op& op, Inputs inputs) {
  check_arity(op, inputs, loss_arity(loss));
  return loss_outputs(loss, op, inputs);
}

Outputs infer_rule(const CrossEntropyGrad& grad, const Op& op, Inputs inputs) {
  const std::size_t given = loss_arity(grad.loss);
  check_arity(op, inputs, given + 2);
  const Outputs forward = loss_outputs(grad.loss, op, inputs);
  check_given(op, "lse", inputs[given], forward[1]);
  check_given(op, "grad_loss", inputs[given + 1], forward[0]);
  return one_output(inputs[0]);
}

}  // namespace ember::ir::rules
