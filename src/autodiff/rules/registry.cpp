// backward_rule: one visit over ir::Op. Each differentiable struct has a rule_for overload in
// its family's file; the structs without a gradient at all are answered here.
#include <variant>

#include "autodiff/rules/activation.h"
#include "autodiff/rules/family_rules.h"

namespace ember::autodiff {
namespace rules {

const BackwardRule* rule_for(const ir::Activation& op) {
  return activation_rule(op);
}
const BackwardRule* rule_for(const ir::Softmax& op) {
  return softmax_rule(op);
}
// The gradient op of softmax's rule: first order only.
const BackwardRule* rule_for(const ir::SoftmaxGrad&) {
  return nullptr;
}

// Comparisons are piecewise constant with Bool outputs; creation ops have no inputs.
const BackwardRule* rule_for(const ir::Compare&) {
  return nullptr;
}
const BackwardRule* rule_for(const ir::CompareScalar&) {
  return nullptr;
}
const BackwardRule* rule_for(const ir::Full&) {
  return nullptr;
}
const BackwardRule* rule_for(const ir::Arange&) {
  return nullptr;
}
const BackwardRule* rule_for(const ir::Random&) {
  return nullptr;
}

}  // namespace rules

const BackwardRule* backward_rule(const ir::Op& op) {
  return std::visit([](const auto& o) { return rules::rule_for(o); }, op);
}

}  // namespace ember::autodiff
