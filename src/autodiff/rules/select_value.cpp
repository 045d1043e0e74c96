// Backward rules of the ops that pick each element from one of several sources (where,
// mask_fill) or convert it (cast). They are compute-bound: their masks are kept, not recomputed.
// A mask gets no gradient.
#include "autodiff/rules/family_rules.h"
#include "autodiff/rules/rule_helpers.h"

namespace ember::autodiff::rules {
namespace {

/// inputs (cond, a, b): a gets the gradient where cond holds, b elsewhere.
Handles where_backward(const BackwardArgs& args) {
  const TensorHandle& g = output_grad(args);
  const TensorHandle& cond = args.inputs[0];
  return {TensorHandle(), reduce_to_shape(keep_where(g, cond), args.input_metas[1].shape),
          reduce_to_shape(zero_where(g, cond), args.input_metas[2].shape)};
}
/// inputs (x, mask): the filled entries do not depend on x.
Handles mask_fill_backward(const BackwardArgs& args) {
  return {zero_where(output_grad(args), args.inputs[1]), TensorHandle()};
}
/// A float input gets the gradient converted back to its dtype; an Int or Bool input none.
Handles cast_backward(const BackwardArgs& args) {
  const DType input_dtype = args.input_metas[0].dtype;
  if (!is_float(input_dtype)) return {TensorHandle()};
  return {ops::cast(output_grad(args), input_dtype)};
}

constexpr BackwardRule kWhere = compute_rule<where_backward>(Needs::Inputs);
constexpr BackwardRule kMaskFill = compute_rule<mask_fill_backward>(Needs::Inputs);
constexpr BackwardRule kCast = compute_rule<cast_backward>(Needs::Nothing);

}  // namespace

const BackwardRule* rule_for(const ir::Where&) {
  return &kWhere;
}
const BackwardRule* rule_for(const ir::MaskFill&) {
  return &kMaskFill;
}
/// A cast to an Int or Bool dtype is piecewise constant: no gradient flows through it.
const BackwardRule* rule_for(const ir::Cast& op) {
  return is_float(op.dtype) ? &kCast : nullptr;
}

}  // namespace ember::autodiff::rules
