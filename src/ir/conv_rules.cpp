// STUB (to be replaced): rules of the conv family.
#include "ir/op_rules.h"

namespace ember::ir::rules {

Outputs infer_rule(const Conv&, const Op& op, Inputs) {
  fail(op, "not implemented yet");
}
Outputs infer_rule(const ConvWeightGrad&, const Op& op, Inputs) {
  fail(op, "not implemented yet");
}

}  // namespace ember::ir::rules
