// STUB (to be replaced): rules of the interpolate family.
#include "ir/op_rules.h"

namespace ember::ir::rules {

Outputs infer_rule(const Interpolate&, const Op& op, Inputs) {
  fail(op, "not implemented yet");
}
Outputs infer_rule(const InterpolateGrad&, const Op& op, Inputs) {
  fail(op, "not implemented yet");
}

}  // namespace ember::ir::rules
