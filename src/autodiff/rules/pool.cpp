// STUB (to be replaced): backward rules of the pool family.
#include "autodiff/rules/family_rules.h"

namespace ember::autodiff::rules {

const BackwardRule* rule_for(const ir::Pool&) {
  return nullptr;
}
const BackwardRule* rule_for(const ir::AdaptivePool&) {
  return nullptr;
}
const BackwardRule* rule_for(const ir::AvgPoolGrad&) {
  return nullptr;
}
const BackwardRule* rule_for(const ir::AdaptiveAvgPoolGrad&) {
  return nullptr;
}

}  // namespace ember::autodiff::rules
