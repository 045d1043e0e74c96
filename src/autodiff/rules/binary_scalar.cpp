// Backward rules of the tensor-scalar elementwise ops (memory-bound): x op s, or s op x when
// scalar_lhs. Only the tensor gets a gradient.
//
// Note: maximum and minimum with a scalar are how clamp, clamp_min and clamp_max are lowered, so
// they follow PyTorch's clamp: the gradient passes where x is within the bound, boundary
// included (x >= min for maximum, x <= max for minimum), instead of the half split that
// maximum of two tensors gives on a tie.
#include <cmath>
#include <variant>

#include "autodiff/rules/family_rules.h"
#include "autodiff/rules/rule_helpers.h"

namespace ember::autodiff::rules {
namespace {

using ir::BinaryOp;

const Scalar& scalar(const BackwardArgs& args) {
  return std::get<ir::BinaryScalar>(args.op).value;
}
const TensorHandle& input(const BackwardArgs& args) {
  return args.inputs[0];
}

Handles identity_backward(const BackwardArgs& args) {
  return {output_grad(args)};
}
Handles neg_backward(const BackwardArgs& args) {
  return {ops::neg(output_grad(args))};
}
Handles mul_backward(const BackwardArgs& args) {
  return {ops::mul_scalar(output_grad(args), scalar(args))};
}
Handles div_backward(const BackwardArgs& args) {
  return {ops::div_scalar(output_grad(args), scalar(args))};
}
/// d(s/x)/dx = -s / x^2.
Handles rdiv_backward(const BackwardArgs& args) {
  const TensorHandle& x = input(args);
  return {ops::neg(ops::div(ops::mul_scalar(output_grad(args), scalar(args)), ops::mul(x, x)))};
}
/// remainder(s, x) = s - x * floor(s / x): d/dx = -floor(s / x).
Handles rrem_backward(const BackwardArgs& args) {
  const TensorHandle quotient = ops::floor(ops::rdiv_scalar(input(args), scalar(args)));
  return {ops::neg(ops::mul(output_grad(args), quotient))};
}
/// d(x^s)/dx = s x^(s-1); zero for s = 0 (not 0 * inf at x = 0), as in PyTorch.
Handles pow_backward(const BackwardArgs& args) {
  const double s = scalar(args).as_double();
  const TensorHandle& g = output_grad(args);
  if (s == 0.0) return {ops::full_like(g, 0)};
  return {ops::mul(ops::mul_scalar(g, s), ops::powf_scalar(input(args), s - 1.0))};
}
/// d(s^x)/dx = s^x log(s); for s = 0, zero where x >= 0 (PyTorch), i.e. where s^x <= 1.
Handles rpow_backward(const BackwardArgs& args) {
  const double s = scalar(args).as_double();
  const TensorHandle& y = args.outputs[0];
  const TensorHandle d = ops::mul_scalar(ops::mul(output_grad(args), y), std::log(s));
  if (s != 0.0) return {d};
  return {zero_where(d, ops::lower_equal_elem(y, 1))};
}
Handles clamp_min_backward(const BackwardArgs& args) {
  return {keep_where(output_grad(args), ops::greater_equal_elem(input(args), scalar(args)))};
}
Handles clamp_max_backward(const BackwardArgs& args) {
  return {keep_where(output_grad(args), ops::lower_equal_elem(input(args), scalar(args)))};
}

constexpr BackwardRule kIdentity = memory_rule<identity_backward>(Needs::Nothing);
constexpr BackwardRule kNeg = memory_rule<neg_backward>(Needs::Nothing);
constexpr BackwardRule kMul = memory_rule<mul_backward>(Needs::Nothing);
constexpr BackwardRule kDiv = memory_rule<div_backward>(Needs::Nothing);
constexpr BackwardRule kRdiv = memory_rule<rdiv_backward>(Needs::Inputs);
constexpr BackwardRule kRrem = memory_rule<rrem_backward>(Needs::Inputs);
constexpr BackwardRule kPow = memory_rule<pow_backward>(Needs::Inputs);
constexpr BackwardRule kRpow = memory_rule<rpow_backward>(Needs::Outputs);
constexpr BackwardRule kClampMin = memory_rule<clamp_min_backward>(Needs::Inputs);
constexpr BackwardRule kClampMax = memory_rule<clamp_max_backward>(Needs::Inputs);

}  // namespace

const BackwardRule* rule_for(const ir::BinaryScalar& op) {
  const bool rev = op.scalar_lhs;
  switch (op.op) {
    case BinaryOp::Add:
      return &kIdentity;
    case BinaryOp::Sub:
      return rev ? &kNeg : &kIdentity;
    case BinaryOp::Mul:
      return &kMul;
    case BinaryOp::Div:
      return rev ? &kRdiv : &kDiv;
    case BinaryOp::Rem:
      return rev ? &kRrem : &kIdentity;
    case BinaryOp::Pow:
      return rev ? &kRpow : &kPow;
    case BinaryOp::Maximum:
      return &kClampMin;
    case BinaryOp::Minimum:
      return &kClampMax;
    case BinaryOp::And:
    case BinaryOp::Or:
    case BinaryOp::Xor:
      return nullptr;
  }
  return nullptr;
}

}  // namespace ember::autodiff::rules
