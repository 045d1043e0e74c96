// STUB (to be replaced): backward rules of the interpolate family.
#include "autodiff/rules/family_rules.h"

namespace ember::autodiff::rules {

const BackwardRule* rule_for(const ir::Interpolate&) {
  return nullptr;
}
const BackwardRule* rule_for(const ir::InterpolateGrad&) {
  return nullptr;
}

}  // namespace ember::autodiff::rules
