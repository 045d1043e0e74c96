// Backward rules of the unary elementwise ops (memory-bound). Each is g * f'(x), written with
// the output where f' is cheapest from it (exp, sqrt, tan, tanh, recip), else with the input.
//
// Note: sign, floor, ceil and round are piecewise constant. Like PyTorch they get a rule that
// returns zeros rather than no rule, so a graph through them (x.floor() * y) still gives every
// leaf a gradient of its shape. Not, IsNan and IsInf have Bool outputs: no rule.
#include <numbers>

#include "autodiff/rules/family_rules.h"
#include "autodiff/rules/rule_helpers.h"

namespace ember::autodiff::rules {
namespace {

using ir::UnaryOp;

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

constexpr BackwardRule kNeg = memory_rule<neg_backward>(Needs::Nothing);
constexpr BackwardRule kAbs = memory_rule<abs_backward>(Needs::Inputs);
constexpr BackwardRule kZero = memory_rule<zero_backward>(Needs::Nothing);
constexpr BackwardRule kExp = memory_rule<exp_backward>(Needs::Outputs);
constexpr BackwardRule kLog = memory_rule<log_backward>(Needs::Inputs);
constexpr BackwardRule kLog1p = memory_rule<log1p_backward>(Needs::Inputs);
constexpr BackwardRule kSqrt = memory_rule<sqrt_backward>(Needs::Outputs);
constexpr BackwardRule kSin = memory_rule<sin_backward>(Needs::Inputs);
constexpr BackwardRule kCos = memory_rule<cos_backward>(Needs::Inputs);
constexpr BackwardRule kTan = memory_rule<tan_backward>(Needs::Outputs);
constexpr BackwardRule kTanh = memory_rule<tanh_backward>(Needs::Outputs);
constexpr BackwardRule kErf = memory_rule<erf_backward>(Needs::Inputs);
constexpr BackwardRule kLogit = memory_rule<logit_backward>(Needs::Inputs);
constexpr BackwardRule kRecip = memory_rule<recip_backward>(Needs::Outputs);

}  // namespace

const BackwardRule* rule_for(const ir::Unary& op) {
  switch (op.op) {
    case UnaryOp::Neg:
      return &kNeg;
    case UnaryOp::Abs:
      return &kAbs;
    case UnaryOp::Sign:
    case UnaryOp::Floor:
    case UnaryOp::Ceil:
    case UnaryOp::Round:
      return &kZero;
    case UnaryOp::Exp:
      return &kExp;
    case UnaryOp::Log:
      return &kLog;
    case UnaryOp::Log1p:
      return &kLog1p;
    case UnaryOp::Sqrt:
      return &kSqrt;
    case UnaryOp::Sin:
      return &kSin;
    case UnaryOp::Cos:
      return &kCos;
    case UnaryOp::Tan:
      return &kTan;
    case UnaryOp::Tanh:
      return &kTanh;
    case UnaryOp::Erf:
      return &kErf;
    case UnaryOp::Logit:
      return &kLogit;
    case UnaryOp::Recip:
      return &kRecip;
    case UnaryOp::Not:
    case UnaryOp::IsNan:
    case UnaryOp::IsInf:
      return nullptr;
  }
  return nullptr;
}

}  // namespace ember::autodiff::rules
