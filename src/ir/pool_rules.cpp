// STUB (to be replaced): rules of the pool family.
#include "ir/op_rules.h"

namespace ember::ir::rules {

Outputs infer_rule(const Pool&, const Op& op, Inputs) {
  fail(op, "not implemented yet");
}
Outputs infer_rule(const AdaptivePool&, const Op& op, Inputs) {
  fail(op, "not implemented yet");
}
Outputs infer_rule(const AvgPoolGrad&, const Op& op, Inputs) {
  fail(op, "not implemented yet");
}
Outputs infer_rule(const AdaptiveAvgPoolGrad&, const Op& op, Inputs) {
  fail(op, "not implemented yet");
}

}  // namespace ember::ir::rules
