#include "fusion/executor.h"

#include <algorithm>
#include <exception>
#include <string>
#include <utility>

#include "ember/error.h"
#include "fusion/op_by_op.h"

namespace ember::fusion {

namespace {

/// A group of one op on at most this many elements runs through the backend's eager kernel:
/// there, finding and setting up a fused program (its signature, the cache lookup, the backend's
/// per-program plan) costs more than the op itself, and one op gains nothing from fusion. Larger
/// lone ops keep the fused path, whose streaming stores help big outputs.
constexpr int64_t kEagerElements = int64_t{1} << 15;

bool is_small(const Shape& shape) {
  return shape.num_elements() <= kEagerElements;
}

/// The operands of values (a group's program inputs, or a lone op's arguments). Note: when they
/// are the stream's external buffers in order (the usual case), they are passed as they are,
/// without copies.
std::span<const backend::Operand> operands_of(std::span<const ValueRef> values,
                                              const PendingWork& work,
                                              const std::vector<backend::BufferPtr>& results,
                                              std::vector<backend::Operand>& storage) {
  uint32_t next = 0;
  const bool externals_in_order =
      values.size() == work.externals.size() && std::ranges::all_of(values, [&](ValueRef value) {
        return value == ValueRef{ValueRef::Kind::External, next++};
      });
  if (externals_in_order) return work.externals;
  storage.clear();
  for (const ValueRef input : values) {
    storage.push_back(input.kind == ValueRef::Kind::External
                          ? work.externals[input.index]
                          : backend::Operand{results[input.index], work.ops[input.index].output});
  }
  return storage;
}

}  // namespace

std::span<backend::BufferPtr> Executor::run(const PendingWork& work, const std::vector<bool>& live,
                                            Scratch& scratch) {
  std::vector<backend::BufferPtr>& results = scratch.results;
  results.assign(work.ops.size(), nullptr);
  // A queue of one live op (an op then a sync or a read) needs no grouping.
  if (work.ops.size() == 1 && live[0] && is_small(work.ops[0].output.shape)) {
    run_lone(0, work, scratch);
    return results;
  }
  for (const Group& group : scratch.grouping.split(work, live)) {
    if (group.ops.size() == 1 && is_small(group.shape)) {
      run_lone(group.ops.front(), work, scratch);
      continue;
    }
    GroupSignature& signature = scratch.signature;
    signature_of(group, work, signature);
    const std::shared_ptr<const ir::Program> program =
        cache_.find_or_build(signature.key, [&] { return build_program(group, work); });
    backend::Outputs outputs =
        run_program(*program, operands_of(group.inputs, work, results, scratch.inputs),
                    signature.constants, group.shape);
    scratch.inputs.clear();  // holds buffers: not past their use
    for (std::size_t k = 0; k < group.outputs.size(); ++k)
      results[group.ops[group.outputs[k]]] = std::move(outputs[k]);
  }
  return results;
}

void Executor::run_lone(uint32_t index, const PendingWork& work, Scratch& scratch) {
  const QueuedOp& queued = work.ops[index];
  const std::span<const backend::Operand> args =
      operands_of({queued.args.begin(), queued.args.end()}, work, scratch.results, scratch.inputs);
  scratch.results[index] = execute_queued(inner_, queued.op, args, queued.output);
  scratch.inputs.clear();  // holds buffers: not past their use
}

backend::Outputs Executor::run_program(const ir::Program& program,
                                       std::span<const backend::Operand> inputs,
                                       std::span<const Scalar> constants, const Shape& shape) {
  if (!runs_programs_) return run_op_by_op(inner_, program, inputs, constants, shape);
  backend::Outputs outputs;
  try {
    outputs = inner_.execute_fused(program, inputs, constants, shape);
  } catch (const std::exception& e) {
    throw ExecutionError("[fusion] queued ops (" + program.describe() +
                         ") failed: " + failure_text(e));
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
