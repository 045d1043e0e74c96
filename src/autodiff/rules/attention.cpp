// Backward rule of the fused attention (compute-bound): its gradient op AttentionGrad recomputes
// the probabilities from q, k, the mask and the forward's log-sum-exp, so the rule keeps the
// inputs and both outputs (never the [L, S] probabilities). The mask gets no gradient: the public
// function takes the composite for a Float mask that requires one. AttentionGrad has no rule
// (first order only) and no public function: the rule runs it through tensor::run, the dispatch
// every ops:: function ends in.
#include <variant>
#include <vector>

#include "autodiff/rules/family_rules.h"
#include "autodiff/rules/rule_helpers.h"
#include "tensor/for_autodiff.h"

namespace ember::autodiff::rules {
namespace {

Handles attention_backward(const BackwardArgs& args) {
  std::vector<TensorHandle> operands(args.inputs.begin(), args.inputs.end());
  operands.push_back(args.outputs[0]);
  operands.push_back(args.outputs[1]);
  operands.push_back(output_grad(args));
  const ir::AttentionGrad grad{std::get<ir::Attention>(args.op)};
  Handles gradients = tensor::run(grad, operands);
  gradients.resize(args.inputs.size());  // no gradient for the mask
  return gradients;
}

constexpr BackwardRule kAttention = compute_rule<attention_backward>(Needs::InputsAndOutputs);

}  // namespace

const BackwardRule* rule_for(const ir::Attention&) {
  return &kAttention;
}
const BackwardRule* rule_for(const ir::AttentionGrad&) {
  return nullptr;
}

}  // namespace ember::autodiff::rules
