// Backward rules of the activations and softmax. An activation's gradient is g * f'(x), f' its
// <name>_derivative, written with ember::ops from the input (its gradient column in the op table,
// ember/ops.def, says Inputs; activations are memory-bound: under Balanced checkpointing their
// output is not kept). At kinks the derivative is PyTorch's: relu'(0) = 0, hard_sigmoid' = 0 at
// ±3, hard_swish'(3) = 1.5. Softmax is compute-bound: its gradient is cheapest from its output,
// which is kept.
#include <numbers>
#include <variant>
#include <vector>

#include "autodiff/rules/activation.h"
#include "autodiff/rules/gradient_column.h"
#include "autodiff/rules/rule_helpers.h"
#include "ir/activation_constants.h"
#include "tensor/for_autodiff.h"

namespace ember::autodiff::rules {
namespace {

using ir::kGeluTanhCubic;
using ir::kSeluAlpha;
using ir::kSeluScale;
using ir::kSoftplusThreshold;

constexpr double kSqrt2OverPi = std::numbers::sqrt2 * std::numbers::inv_sqrtpi;

/// 1 where x > 0, else negative_side (an expression of x that may overflow where x > 0: the
/// mask replaces it there).
TensorHandle one_where_positive(const TensorHandle& x, const TensorHandle& negative_side) {
  return ops::mask_fill(negative_side, ops::greater_elem(x, 0), 1);
}

/// a * b + c.
TensorHandle mul_add(const TensorHandle& a, const TensorHandle& b, const TensorHandle& c) {
  return ops::add(ops::mul(a, b), c);
}

/// f'(x) of an activation (op carries its parameter): its <name>_derivative below.
using Derivative = TensorHandle (*)(const TensorHandle& x, const ir::Activation& op);

TensorHandle relu_derivative(const TensorHandle& x, const ir::Activation&) {
  return as_weights(ops::greater_elem(x, 0), x.dtype());
}

TensorHandle leaky_relu_derivative(const TensorHandle& x, const ir::Activation& op) {
  return one_where_positive(x, ops::full_like(x, op.alpha));
}

/// Phi(x) + x * phi(x), Phi and phi the standard normal CDF and density.
TensorHandle gelu_derivative(const TensorHandle& x, const ir::Activation&) {
  const TensorHandle cdf = ops::mul_scalar(
      ops::add_scalar(ops::erf(ops::mul_scalar(x, std::numbers::sqrt2 / 2)), 1), 0.5);
  const TensorHandle density = ops::mul_scalar(ops::exp(ops::mul_scalar(ops::mul(x, x), -0.5)),
                                               std::numbers::inv_sqrtpi / std::numbers::sqrt2);
  return mul_add(x, density, cdf);
}

/// With t = tanh(k (x + c x^3)): (1 + t) / 2 + x (1 - t^2) k (1 + 3 c x^2) / 2.
TensorHandle gelu_tanh_derivative(const TensorHandle& x, const ir::Activation&) {
  const TensorHandle x2 = ops::mul(x, x);
  const TensorHandle inner = ops::mul_scalar(
      ops::mul(x, ops::add_scalar(ops::mul_scalar(x2, kGeluTanhCubic), 1)), kSqrt2OverPi);
  const TensorHandle t = ops::tanh(inner);
  const TensorHandle slope =
      ops::mul_scalar(ops::add_scalar(ops::mul_scalar(x2, 3 * kGeluTanhCubic), 1), kSqrt2OverPi);
  const TensorHandle sech2 = ops::rsub_scalar(ops::mul(t, t), 1);
  const TensorHandle half_x = ops::mul_scalar(x, 0.5);
  return mul_add(ops::mul(half_x, sech2), slope, ops::mul_scalar(ops::add_scalar(t, 1), 0.5));
}

/// s (1 - s), s = sigmoid(x).
TensorHandle sigmoid_derivative(const TensorHandle& x, const ir::Activation&) {
  const TensorHandle s = ops::sigmoid(x);
  return ops::mul(s, ops::rsub_scalar(s, 1));
}

/// sigmoid(-x).
TensorHandle log_sigmoid_derivative(const TensorHandle& x, const ir::Activation&) {
  return ops::sigmoid(ops::neg(x));
}

/// s (1 + x (1 - s)), s = sigmoid(x).
TensorHandle silu_derivative(const TensorHandle& x, const ir::Activation&) {
  const TensorHandle s = ops::sigmoid(x);
  return ops::mul(s, ops::add_scalar(ops::mul(x, ops::rsub_scalar(s, 1)), 1));
}

/// sigmoid(beta x), exactly 1 where softplus is linear.
TensorHandle softplus_derivative(const TensorHandle& x, const ir::Activation& op) {
  const TensorHandle scaled = ops::mul_scalar(x, op.beta);
  return ops::mask_fill(ops::sigmoid(scaled), ops::greater_elem(scaled, kSoftplusThreshold), 1);
}

/// t + x sigmoid(x) (1 - t^2), t = tanh(softplus(x)).
TensorHandle mish_derivative(const TensorHandle& x, const ir::Activation&) {
  const TensorHandle t = ops::tanh(ops::softplus(x));
  const TensorHandle sech2 = ops::rsub_scalar(ops::mul(t, t), 1);
  return mul_add(ops::mul(x, ops::sigmoid(x)), sech2, t);
}

TensorHandle elu_derivative(const TensorHandle& x, const ir::Activation& op) {
  return one_where_positive(x, ops::mul_scalar(ops::exp(x), op.alpha));
}

TensorHandle selu_derivative(const TensorHandle& x, const ir::Activation&) {
  return ops::mul_scalar(one_where_positive(x, ops::mul_scalar(ops::exp(x), kSeluAlpha)),
                         kSeluScale);
}

TensorHandle celu_derivative(const TensorHandle& x, const ir::Activation& op) {
  return one_where_positive(x, ops::exp(ops::div_scalar(x, op.alpha)));
}

/// 1/6 on (-3, 3), 0 elsewhere.
TensorHandle hard_sigmoid_derivative(const TensorHandle& x, const ir::Activation&) {
  const TensorHandle inside = ops::bool_and(ops::greater_elem(x, -3), ops::lower_elem(x, 3));
  return ops::div_scalar(as_weights(inside, x.dtype()), 6);
}

/// 0 below -3, x / 3 + 1/2 on [-3, 3], 1 above 3.
TensorHandle hard_swish_derivative(const TensorHandle& x, const ir::Activation&) {
  const TensorHandle middle = ops::add_scalar(ops::div_scalar(x, 3), 0.5);
  return ops::mask_fill(ops::mask_fill(middle, ops::lower_elem(x, -3), 0), ops::greater_elem(x, 3),
                        1);
}

/// g * f'(x): the backward function of every activation, f' its derivative.
template <Derivative derivative>
Handles activation_backward(const BackwardArgs& args) {
  const auto& op = std::get<ir::Activation>(args.op);
  return {ops::mul(output_grad(args), derivative(args.inputs[0], op))};
}

/// softmax's gradient: one fused op (ir::SoftmaxGrad: y and g read once) where the device's
/// backend runs it, else its composite (tensor::composite_of).
Handles softmax_backward(const BackwardArgs& args) {
  const TensorHandle& y = args.outputs[0];
  const std::vector<TensorHandle> operands{y, output_grad(args)};
  const ir::SoftmaxGrad grad{std::get<ir::Softmax>(args.op)};
  const ir::TensorMeta& meta = tensor::impl_of(y, "softmax_backward").meta;
  const ir::TensorMeta metas[] = {meta, meta};
  if (tensor::runs_fused_rows(grad, y, metas, "softmax_backward"))
    return {tensor::run(grad, operands).front()};
  return tensor::composite_of(grad, operands);
}

// The rule of each activation, indexed by ir::ActivationOp: what its gradient column in the op
// table names, with its <name>_derivative above.
constexpr const BackwardRule* kActivationRules[] = {
#define EMBER_ACTIVATION_OP(Enumerator, name, parameter, gradient) \
  EMBER_GRADIENT_RULE(gradient, activation_backward<name##_derivative>),
#include "ember/ops.def"
};
constexpr BackwardRule kSoftmax = compute_rule<softmax_backward>(Needs::Outputs);

}  // namespace

const BackwardRule* activation_rule(const ir::Activation& op) {
  return rule_in(kActivationRules, op.op);
}

const BackwardRule* softmax_rule(const ir::Softmax&) {
  return &kSoftmax;
}

}  // namespace ember::autodiff::rules
