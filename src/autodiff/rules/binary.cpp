// Backward rules of the binary elementwise ops on two tensors (memory-bound): <name>_backward for
// each op whose gradient column in the op table (ember/ops.def) names one, registered by the
// table at the end. The operands broadcast, so each gradient is summed back to its operand's
// shape (reduce_to_shape). And, Or and Xor act on Bool tensors: no rule (none).
#include "autodiff/rules/family_rules.h"
#include "autodiff/rules/gradient_column.h"
#include "autodiff/rules/rule_helpers.h"

namespace ember::autodiff::rules {
namespace {

const TensorHandle& lhs(const BackwardArgs& args) {
  return args.inputs[0];
}
const TensorHandle& rhs(const BackwardArgs& args) {
  return args.inputs[1];
}

/// The two broadcast-shaped gradients summed back to the operands' shapes.
Handles to_operand_shapes(const BackwardArgs& args, const TensorHandle& grad_lhs,
                          const TensorHandle& grad_rhs) {
  return {reduce_to_shape(grad_lhs, args.input_metas[0].shape),
          reduce_to_shape(grad_rhs, args.input_metas[1].shape)};
}

Handles add_backward(const BackwardArgs& args) {
  const TensorHandle& g = output_grad(args);
  return to_operand_shapes(args, g, g);
}
Handles sub_backward(const BackwardArgs& args) {
  const TensorHandle& g = output_grad(args);
  return to_operand_shapes(args, g, ops::neg(g));
}
Handles mul_backward(const BackwardArgs& args) {
  const TensorHandle& g = output_grad(args);
  return to_operand_shapes(args, ops::mul(g, rhs(args)), ops::mul(g, lhs(args)));
}
/// d(a/b)/da = 1/b, d(a/b)/db = -a/b^2 = -(1/b)(a/b).
Handles div_backward(const BackwardArgs& args) {
  const TensorHandle g_over_b = ops::div(output_grad(args), rhs(args));
  return to_operand_shapes(args, g_over_b,
                           ops::neg(ops::mul(g_over_b, ops::div(lhs(args), rhs(args)))));
}
/// remainder(a, b) = a - b * floor(a / b): d/da = 1, d/db = -floor(a / b).
Handles remainder_backward(const BackwardArgs& args) {
  const TensorHandle& g = output_grad(args);
  const TensorHandle quotient = ops::floor(ops::div(lhs(args), rhs(args)));
  return to_operand_shapes(args, g, ops::neg(ops::mul(g, quotient)));
}
/// d(a^b)/da = b a^(b-1), zero where b = 0 (not 0 * inf at a = 0); d(a^b)/db = a^b log(a), zero
/// where a = 0 and b >= 0 (not 0 * -inf); NaN for a < 0, as in PyTorch. The output is recomputed
/// rather than kept: the op is memory-bound.
Handles powf_backward(const BackwardArgs& args) {
  const TensorHandle& g = output_grad(args);
  const TensorHandle& a = lhs(args);
  const TensorHandle& b = rhs(args);
  const TensorHandle d_lhs = ops::mul(ops::mul(g, b), ops::powf(a, ops::sub_scalar(b, 1)));
  const TensorHandle d_rhs = ops::mul(ops::mul(g, ops::powf(a, b)), ops::log(a));
  const TensorHandle base_zero =
      ops::bool_and(ops::equal_elem(a, 0), ops::greater_equal_elem(b, 0));
  return to_operand_shapes(args, zero_where(d_lhs, ops::equal_elem(b, 0)),
                           zero_where(d_rhs, base_zero));
}

/// maximum/minimum: the gradient goes to the operand that was picked; on a tie each operand
/// gets half (PyTorch). `lhs_loses` is where the other operand was picked.
Handles extreme_backward(const BackwardArgs& args, const TensorHandle& lhs_loses,
                         const TensorHandle& rhs_loses) {
  const TensorHandle& g = output_grad(args);
  const TensorHandle tie = ops::equal(lhs(args), rhs(args));
  const TensorHandle shared = ops::where(tie, ops::mul_scalar(g, 0.5), g);
  return to_operand_shapes(args, zero_where(shared, lhs_loses), zero_where(shared, rhs_loses));
}
Handles maximum_backward(const BackwardArgs& args) {
  return extreme_backward(args, ops::lower(lhs(args), rhs(args)),
                          ops::greater(lhs(args), rhs(args)));
}
Handles minimum_backward(const BackwardArgs& args) {
  return extreme_backward(args, ops::greater(lhs(args), rhs(args)),
                          ops::lower(lhs(args), rhs(args)));
}

// The rule of each binary op, indexed by ir::BinaryOp: what its gradient column in the op table
// names, with its <name>_backward above.
constexpr const BackwardRule* kBinaryRules[] = {
#define EMBER_BINARY_OP(Enumerator, name, scalar_name, dtypes, commutative, gradient, ...) \
  EMBER_GRADIENT_RULE(gradient, name##_backward),
#include "ember/ops.def"
};

}  // namespace

const BackwardRule* rule_for(const ir::Binary& op) {
  return rule_in(kBinaryRules, op.op);
}

}  // namespace ember::autodiff::rules
