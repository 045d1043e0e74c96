#include "fusion/executor.h"

#include <exception>
#include <string>

#include "ember/error.h"
#include "fusion/grouping.h"
#include "fusion/op_by_op.h"
#include "fusion/program_builder.h"

namespace ember::fusion {

std::vector<backend::BufferPtr> Executor::run(const PendingWork& work,
                                              const std::vector<bool>& live) {
  std::vector<backend::BufferPtr> results(work.ops.size());
  for (const Group& group : split_into_groups(work, live)) {
    const GroupSignature signature = signature_of(group, work);
    const std::shared_ptr<const Program> program =
        cache_.find_or_build(signature.key, [&] { return build_program(group, work); });
    std::vector<backend::Operand> inputs;
    for (const ValueRef input : group.inputs) {
      inputs.push_back(input.kind == ValueRef::Kind::External
                           ? work.externals[input.index]
                           : backend::Operand{results[input.index], work.ops[input.index].output});
    }
    const std::vector<backend::BufferPtr> outputs =
        run_program(*program, inputs, signature.constants, group.shape);
    for (std::size_t k = 0; k < group.outputs.size(); ++k)
      results[group.ops[group.outputs[k]]] = outputs[k];
  }
  return results;
}

std::vector<backend::BufferPtr> Executor::run_program(const Program& program,
                                                      std::span<const backend::Operand> inputs,
                                                      std::span<const Scalar> constants,
                                                      const Shape& shape) {
  if (!inner_.supports_fused()) return run_op_by_op(inner_, program, inputs, constants, shape);
  std::vector<backend::BufferPtr> outputs;
  try {
    outputs = inner_.execute_fused(program, inputs, constants, shape);
  } catch (const std::exception& e) {
    throw ExecutionError("[fusion] queued ops (" + program.describe() + ") failed: " + e.what());
  }
  if (outputs.size() != program.outputs.size()) {
    // A backend bug, not a user error: report it instead of indexing past the end.
    throw ExecutionError("[fusion] " + inner_.name() + " returned " +
                         std::to_string(outputs.size()) + " buffers for a program of " +
                         std::to_string(program.outputs.size()) + " outputs");
  }
  return outputs;
}

}  // namespace ember::fusion
