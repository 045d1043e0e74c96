// ir::infer: dispatches each op to its rule (src/ir/*_rules.cpp).
#include "ir/op_rules.h"

namespace ember::ir {

OutputMetas infer(const Op& op, std::span<const TensorMeta> inputs) {
  rules::check_input_shapes(op, inputs);
  OutputMetas outputs =
      std::visit([&](const auto& specific) { return rules::infer_rule(specific, op, inputs); }, op);
  rules::check_output_sizes(op, outputs);
  return outputs;
}

}  // namespace ember::ir
