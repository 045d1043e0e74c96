// Rules of the neural-network activations: the elementwise activations and softmax.
#include <cmath>
#include <string_view>

#include "ir/op_rules.h"

namespace ember::ir {

double parameter_of(const Activation& activation) {
  const struct { double none, alpha, beta; } parameters{0.0, activation.alpha, activation.beta};
  switch (activation.op) {
#define EMBER_ACTIVATION_OP(Enumerator, name, parameter, ...) \
  case ActivationOp::Enumerator:                              \
    return parameters.parameter;
#include "ember/ops.def"
  }
  return 0.0;  // not an enumerator: ir::infer refuses it
}

}  // namespace ember::ir

namespace ember::ir::rules {
namespace {

/// Requires op to be an enumerator (an op decoded from untrusted bytes may hold any value).
void check_activation_op(const Activation& activation, const Op& op) {
  require(static_cast<std::size_t>(activation.op) < kOpCount<ActivationOp>, op,
          "unknown activation ", static_cast<int>(activation.op));
}

/// alpha as the public function calls it.
std::string_view alpha_name(ActivationOp op) {
  return op == ActivationOp::LeakyRelu ? "negative_slope" : "alpha";
}

/// Requires the parameters to be finite, and non-zero where the formula divides by them
/// (softplus by beta, celu by alpha).
void check_parameters(const Activation& activation, const Op& op) {
  require(std::isfinite(activation.alpha), op, alpha_name(activation.op), ' ', activation.alpha,
          " must be finite");
  require(std::isfinite(activation.beta), op, "beta ", activation.beta, " must be finite");
  require(activation.op != ActivationOp::Softplus || activation.beta != 0.0, op,
          "beta must be non-zero");
  require(activation.op != ActivationOp::Celu || activation.alpha != 0.0, op,
          "alpha must be non-zero");
}

}  // namespace

Outputs infer_rule(const Activation& activation, const Op& op, Inputs inputs) {
  check_arity(op, inputs, 1);
  check_activation_op(activation, op);
  check_dtype(op, inputs[0].dtype, kFloatDTypes);
  check_parameters(activation, op);
  return one_output(inputs[0]);
}

Outputs infer_rule(const Softmax& softmax, const Op& op, Inputs inputs) {
  check_arity(op, inputs, 1);
  const TensorMeta& x = inputs[0];
  check_dtype(op, x.dtype, kFloatDTypes);
  check_dim(op, softmax.dim, x.shape.rank());
  return one_output(x);
}

Outputs infer_rule(const SoftmaxGrad& grad, const Op& op, Inputs inputs) {
  check_arity(op, inputs, 2);
  const TensorMeta& y = inputs[0];
  check_dtype(op, y.dtype, kFloatDTypes, "y");
  check_same_dtype(op, "y", y.dtype, "grad_y", inputs[1].dtype);
  check_same_shape(op, "y", y.shape, "grad_y", inputs[1].shape);
  check_dim(op, grad.softmax.dim, y.shape.rank());
  return one_output(y);
}

}  // namespace ember::ir::rules
