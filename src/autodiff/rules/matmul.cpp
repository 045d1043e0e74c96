// Backward rule of matmul (compute-bound). For out = a @ b: da = g @ b^T, db = a^T @ g, each over
// the broadcast batch dims and then summed back to its operand's batch shape.
#include "autodiff/rules/family_rules.h"
#include "autodiff/rules/rule_helpers.h"

namespace ember::autodiff::rules {
namespace {

Handles matmul_backward(const BackwardArgs& args) {
  const TensorHandle& g = output_grad(args);
  const TensorHandle& a = args.inputs[0];
  const TensorHandle& b = args.inputs[1];
  return {reduce_to_shape(ops::matmul(g, ops::transpose(b)), args.input_metas[0].shape),
          reduce_to_shape(ops::matmul(ops::transpose(a), g), args.input_metas[1].shape)};
}

constexpr BackwardRule kMatmul = compute_rule<matmul_backward>(Needs::Inputs);

}  // namespace

const BackwardRule* rule_for(const ir::Matmul&) {
  return &kMatmul;
}

}  // namespace ember::autodiff::rules
