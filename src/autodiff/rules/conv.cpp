// STUB (to be replaced): backward rules of the conv family.
#include "autodiff/rules/family_rules.h"

namespace ember::autodiff::rules {

const BackwardRule* rule_for(const ir::Conv&) {
  return nullptr;
}
const BackwardRule* rule_for(const ir::ConvWeightGrad&) {
  return nullptr;
}

}  // namespace ember::autodiff::rules
