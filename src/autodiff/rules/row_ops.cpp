// Backward rules of the fused row ops (compute-bound: each is a reduction per row). LayerNorm's
// gradient op recomputes the normalized rows from x and the forward's mean and rstd; CrossEntropy's
// recomputes the probabilities from the logits and the forward's log-sum-exp, so neither keeps
// anything the size of x beyond x itself. The gradient ops have no rule (first order only) and
// no public function: the rules run them through tensor::run, the dispatch every ops:: function
// ends in. Targets and class weights get no gradient: the public function takes the composite
// when the weights need one.
#include <cstddef>
#include <variant>
#include <vector>

#include "autodiff/rules/family_rules.h"
#include "autodiff/rules/rule_helpers.h"
#include "tensor/for_autodiff.h"

namespace ember::autodiff::rules {
namespace {

Handles layer_norm_backward(const BackwardArgs& args) {
  const ir::LayerNorm& norm = std::get<ir::LayerNorm>(args.op);
  Handles operands{args.inputs[0]};
  if (norm.weight) operands.push_back(args.inputs[1]);
  operands.insert(operands.end(), args.outputs.begin() + 1, args.outputs.end());
  operands.push_back(output_grad(args));
  return tensor::run(ir::LayerNormGrad{norm}, operands);
}

Handles cross_entropy_backward(const BackwardArgs& args) {
  Handles operands(args.inputs.begin(), args.inputs.end());
  operands.push_back(args.outputs[1]);
  operands.push_back(output_grad(args));
  Handles gradients =
      tensor::run(ir::CrossEntropyGrad{std::get<ir::CrossEntropy>(args.op)}, operands);
  gradients.resize(args.inputs.size());  // none for the targets and the class weights
  return gradients;
}

constexpr BackwardRule kLayerNorm = compute_rule<layer_norm_backward>(Needs::InputsAndOutputs);
constexpr BackwardRule kCrossEntropy =
    compute_rule<cross_entropy_backward>(Needs::InputsAndOutputs);

}  // namespace

const BackwardRule* rule_for(const ir::LayerNorm&) {
  return &kLayerNorm;
}
const BackwardRule* rule_for(const ir::LayerNormGrad&) {
  return nullptr;
}
const BackwardRule* rule_for(const ir::CrossEntropy&) {
  return &kCrossEntropy;
}
const BackwardRule* rule_for(const ir::CrossEntropyGrad&) {
  return nullptr;
}

}  // namespace ember::autodiff::rules
