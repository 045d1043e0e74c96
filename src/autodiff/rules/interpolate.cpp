// Backward rule of interpolate (compute-bound): every output is a weighted sum of inputs, so x's
// gradient is the transposed resampling, the op InterpolateGrad (which has no rule: first order
// only). It needs neither x nor the output, only x's shape. Not ember::ops (rule.h):
// InterpolateGrad has no public function, so the rule runs it through tensor::run_one, the
// dispatch that every ops:: function ends in.
#include <variant>

#include "autodiff/rules/family_rules.h"
#include "autodiff/rules/rule_helpers.h"
#include "tensor/for_autodiff.h"

namespace ember::autodiff::rules {
namespace {

Handles interpolate_backward(const BackwardArgs& args) {
  const ir::InterpolateGrad grad{std::get<ir::Interpolate>(args.op), args.input_metas[0].shape};
  return {tensor::run_one(grad, {output_grad(args)})};
}

constexpr BackwardRule kInterpolate = compute_rule<interpolate_backward>(Needs::Nothing);

}  // namespace

const BackwardRule* rule_for(const ir::Interpolate&) {
  return &kInterpolate;
}
const BackwardRule* rule_for(const ir::InterpolateGrad&) {
  return nullptr;
}

}  // namespace ember::autodiff::rules
