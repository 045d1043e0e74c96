// Backward rules of the unary elementwise ops (memory-bound): <name>_backward for each op whose
// gradient column in the op table (ember/ops.def) names one, registered by the table at the end.
// Each is g * f'(x), written with the output where f' is cheapest from it (exp, sqrt, tan, tanh,
// recip: the column says Outputs), else with the input (Inputs).
//
// Note: sign, floor, ceil and round are piecewise constant. Like PyTorch they get a rule that
// returns zeros rather than no rule (the column says zero), so a graph through them
// (x.floor() * y) still gives every leaf a gradient of its shape. Not, IsNan and IsInf have Bool
// outputs: no rule (none).
#include <numbers>

#include "autodiff/rules/family_rules.h"
#include "autodiff/rules/gradient_column.h"
#include "autodiff/rules/rule_helpers.h"

namespace ember::autodiff::rules {
namespace {

const TensorHandle& input(const BackwardArgs& args) {
  return args.inputs[0];
}
const TensorHandle& output(const BackwardArgs& args) {
  return args.outputs[0];
}

Handles neg_backward(const BackwardArgs& args) {
  return {ops::neg(output_grad(args))};
}
/// sign(0) = 0, so abs'(0) = 0 as in PyTorch.
Handles abs_backward(const BackwardArgs& args) {
  return {ops::mul(output_grad(args), ops::sign(input(args)))};
}
/// The rule of the ops whose gradient column says zero.
Handles zero_backward(const BackwardArgs& args) {
  return {ops::full_like(output_grad(args), 0)};
}
Handles exp_backward(const BackwardArgs& args) {
  return {ops::mul(output_grad(args), output(args))};
}
Handles log_backward(const BackwardArgs& args) {
  return {ops::div(output_grad(args), input(args))};
}
Handles log1p_backward(const BackwardArgs& args) {
  return {ops::div(output_grad(args), ops::add_scalar(input(args), 1))};
}
/// g / (2 sqrt(x)): infinite at x = 0, as in PyTorch.
Handles sqrt_backward(const BackwardArgs& args) {
  return {ops::div(output_grad(args), ops::mul_scalar(output(args), 2))};
}
Handles sin_backward(const BackwardArgs& args) {
  return {ops::mul(output_grad(args), ops::cos(input(args)))};
}
Handles cos_backward(const BackwardArgs& args) {
  return {ops::neg(ops::mul(output_grad(args), ops::sin(input(args))))};
}
/// tan' = 1 + tan^2.
Handles tan_backward(const BackwardArgs& args) {
  const TensorHandle& y = output(args);
  return {ops::mul(output_grad(args), ops::add_scalar(ops::mul(y, y), 1))};
}
/// tanh' = 1 - tanh^2.
Handles tanh_backward(const BackwardArgs& args) {
  const TensorHandle& y = output(args);
  return {ops::mul(output_grad(args), ops::rsub_scalar(ops::mul(y, y), 1))};
}
/// erf'(x) = 2 / sqrt(pi) * exp(-x^2).
Handles erf_backward(const BackwardArgs& args) {
  const TensorHandle& x = input(args);
  const TensorHandle density = ops::exp(ops::neg(ops::mul(x, x)));
  const double scale = 2.0 * std::numbers::inv_sqrtpi;
  return {ops::mul(output_grad(args), ops::mul_scalar(density, scale))};
}
/// logit'(x) = 1 / (x (1 - x)).
Handles logit_backward(const BackwardArgs& args) {
  const TensorHandle& x = input(args);
  return {ops::div(output_grad(args), ops::mul(x, ops::rsub_scalar(x, 1)))};
}
/// (1/x)' = -1/x^2 = -y^2.
Handles recip_backward(const BackwardArgs& args) {
  const TensorHandle& y = output(args);
  return {ops::neg(ops::mul(output_grad(args), ops::mul(y, y)))};
}

// The rule of each unary op, indexed by ir::UnaryOp: what its gradient column in the op table
// names, with its <name>_backward above.
constexpr const BackwardRule* kUnaryRules[] = {
#define EMBER_UNARY_OP(Enumerator, name, dtypes, result, gradient) \
  EMBER_GRADIENT_RULE(gradient, name##_backward),
#include "ember/ops.def"
};

}  // namespace

const BackwardRule* rule_for(const ir::Unary& op) {
  return rule_in(kUnaryRules, op.op);
}

}  // namespace ember::autodiff::rules
