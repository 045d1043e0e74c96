// Backward rules of the tensor-scalar elementwise ops (memory-bound): x op s, or s op x when
// scalar_lhs. Only the tensor gets a gradient. The op table's binary section (ember/ops.def) names
// them: <scalar_name>_backward for x op s (its scalar_gradient column) and
// r<scalar_name>_backward for s op x of an op that is not commutative (rscalar_gradient).
//
// Note: maximum and minimum with a scalar are how clamp, clamp_min and clamp_max are lowered, so
// they follow PyTorch's clamp: the gradient passes where x is within the bound, boundary
// included (x >= min for maximum, x <= max for minimum), instead of the half split that
// maximum of two tensors gives on a tie.
#include <cmath>
#include <variant>

#include "autodiff/rules/family_rules.h"
#include "autodiff/rules/gradient_column.h"
#include "autodiff/rules/rule_helpers.h"

namespace ember::autodiff::rules {
namespace {

const Scalar& scalar(const BackwardArgs& args) {
  return std::get<ir::BinaryScalar>(args.op).value;
}
const TensorHandle& input(const BackwardArgs& args) {
  return args.inputs[0];
}

/// x + s, x - s and remainder(x, s) = x - s floor(x / s) (floor is piecewise constant): d/dx = 1.
Handles pass_gradient(const BackwardArgs& args) {
  return {output_grad(args)};
}
constexpr BackwardFn add_scalar_backward = pass_gradient;
constexpr BackwardFn sub_scalar_backward = pass_gradient;
constexpr BackwardFn remainder_scalar_backward = pass_gradient;
Handles rsub_scalar_backward(const BackwardArgs& args) {
  return {ops::neg(output_grad(args))};
}
Handles mul_scalar_backward(const BackwardArgs& args) {
  return {ops::mul_scalar(output_grad(args), scalar(args))};
}
Handles div_scalar_backward(const BackwardArgs& args) {
  return {ops::div_scalar(output_grad(args), scalar(args))};
}
/// d(s/x)/dx = -s / x^2.
Handles rdiv_scalar_backward(const BackwardArgs& args) {
  const TensorHandle& x = input(args);
  return {ops::neg(ops::div(ops::mul_scalar(output_grad(args), scalar(args)), ops::mul(x, x)))};
}
/// remainder(s, x) = s - x * floor(s / x): d/dx = -floor(s / x).
Handles rremainder_scalar_backward(const BackwardArgs& args) {
  const TensorHandle quotient = ops::floor(ops::rdiv_scalar(input(args), scalar(args)));
  return {ops::neg(ops::mul(output_grad(args), quotient))};
}
/// d(x^s)/dx = s x^(s-1); zero for s = 0 (not 0 * inf at x = 0), as in PyTorch.
Handles powf_scalar_backward(const BackwardArgs& args) {
  const double s = scalar(args).as_double();
  const TensorHandle& g = output_grad(args);
  if (s == 0.0) return {ops::full_like(g, 0)};
  return {ops::mul(ops::mul_scalar(g, s), ops::powf_scalar(input(args), s - 1.0))};
}
/// d(s^x)/dx = s^x log(s); for s = 0, zero where x >= 0 (PyTorch), i.e. where s^x <= 1.
Handles rpowf_scalar_backward(const BackwardArgs& args) {
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

// The rules of x op s and of s op x, indexed by ir::BinaryOp: what the scalar_gradient and
// rscalar_gradient columns of the op table name, with the functions above. s op x of a
// commutative op is x op s, so it gets x op s's rule (its rscalar_gradient column says none).
constexpr const BackwardRule* kScalarRules[] = {
#define EMBER_BINARY_OP(Enumerator, name, scalar_name, dtypes, commutative, gradient, \
                        scalar_gradient, ...)                                         \
  EMBER_GRADIENT_RULE(scalar_gradient, scalar_name##_backward),
#include "ember/ops.def"
};
constexpr const BackwardRule* kReversedScalarRules[] = {
#define EMBER_BINARY_OP(Enumerator, name, scalar_name, dtypes, commutative, gradient, \
                        scalar_gradient, rscalar_gradient)                            \
  commutative ? EMBER_GRADIENT_RULE(scalar_gradient, scalar_name##_backward)          \
              : EMBER_GRADIENT_RULE(rscalar_gradient, r##scalar_name##_backward),
#include "ember/ops.def"
};

}  // namespace

const BackwardRule* rule_for(const ir::BinaryScalar& op) {
  if (op.scalar_lhs) return rule_in(kReversedScalarRules, op.op);
  return rule_in(kScalarRules, op.op);
}

}  // namespace ember::autodiff::rules
