#include "fusion/executor.h"

#include <algorithm>
#include <exception>
#include <string>

#include "ember/error.h"
#include "fusion/op_by_op.h"

namespace ember::fusion {

namespace {

/// The operands of group's program inputs. Note: when they are the stream's external buffers in
/// order (the usual case of one group), they are passed as they are, without copies.
std::span<const backend::Operand> program_inputs(const Group& group, const PendingWork& work,
                                                 const std::vector<backend::BufferPtr>& results,
                                                 std::vector<backend::Operand>& storage) {
  uint32_t next = 0;
  const bool externals_in_order = group.inputs.size() == work.externals.size() &&
                                  std::ranges::all_of(group.inputs, [&](ValueRef input) {
                                    return input == ValueRef{ValueRef::Kind::External, next++};
                                  });
  if (externals_in_order) return work.externals;
  storage.clear();
  for (const ValueRef input : group.inputs) {
    storage.push_back(input.kind == ValueRef::Kind::External
                          ? work.externals[input.index]
                          : backend::Operand{results[input.index], work.ops[input.index].output});
  }
  return storage;
}

}  // namespace

std::vector<backend::BufferPtr> Executor::run(const PendingWork& work,
                                              const std::vector<bool>& live, Scratch& scratch) {
  std::vector<backend::BufferPtr> results(work.ops.size());
  for (const Group& group : scratch.grouping.split(work, live)) {
    GroupSignature& signature = scratch.signature;
    signature_of(group, work, signature);
    const std::shared_ptr<const Program> program =
        cache_.find_or_build(signature.key, [&] { return build_program(group, work); });
    const std::vector<backend::BufferPtr> outputs =
        run_program(*program, program_inputs(group, work, results, scratch.inputs),
                    signature.constants, group.shape);
    scratch.inputs.clear();  // holds buffers: not past their use
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
