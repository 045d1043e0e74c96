#include "fusion/op_by_op.h"

#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

#include "ember/error.h"

namespace ember::fusion {
namespace {

/// last_use[i]: the last instruction reading instruction i's result (i itself when none does).
std::vector<std::size_t> last_uses(const ir::Program& program) {
  std::vector<std::size_t> last_use(program.instructions.size());
  for (std::size_t i = 0; i < program.instructions.size(); ++i) {
    last_use[i] = i;
    for (const ir::ProgramRef arg : program.instructions[i].args) {
      if (arg.kind == ir::ProgramRef::Kind::Instruction) last_use[arg.index] = i;
    }
  }
  return last_use;
}

}  // namespace

std::string failure_text(const std::exception& e) {
  const bool out_of_memory = dynamic_cast<const std::bad_alloc*>(&e) != nullptr ||
                             dynamic_cast<const std::length_error*>(&e) != nullptr;
  return out_of_memory ? "out of memory" : e.what();
}

backend::BufferPtr execute_queued(backend::Backend& backend, const ir::Op& op,
                                  std::span<const backend::Operand> args,
                                  const ir::TensorMeta& output) {
  try {
    // Moved out, not copied: a copy of a shared_ptr is an atomic increment (and its release a
    // decrement), a visible part of an op on a tiny tensor.
    return std::move(backend.execute(op, args, {&output, 1}).at(0));
  } catch (const std::exception& e) {
    throw ExecutionError("[fusion] queued " + ir::name(op) + " failed: " + failure_text(e));
  }
}

backend::Outputs run_op_by_op(backend::Backend& backend, const ir::Program& program,
                              std::span<const backend::Operand> inputs,
                              std::span<const Scalar> constants, const Shape& shape) {
  std::vector<bool> is_output(program.instructions.size(), false);
  for (const uint32_t output : program.outputs)
    is_output[output] = true;
  const std::vector<std::size_t> last_use = last_uses(program);
  std::vector<backend::Operand> results(program.instructions.size());
  for (std::size_t i = 0; i < program.instructions.size(); ++i) {
    const ir::Instruction& instruction = program.instructions[i];
    std::vector<backend::Operand> args;
    for (const ir::ProgramRef arg : instruction.args)
      args.push_back(arg.kind == ir::ProgramRef::Kind::Input ? inputs[arg.index]
                                                             : results[arg.index]);
    const ir::TensorMeta output{shape, instruction.dtype};
    ir::Op op = program.bound_op(i, constants);
    // A cached program serves every shape: an expand is to this execution's.
    if (auto* expand = std::get_if<ir::Expand>(&op)) expand->shape = shape;
    results[i] = {execute_queued(backend, op, args, output), output};
    // Free the intermediates this instruction read for the last time.
    for (const ir::ProgramRef arg : instruction.args) {
      if (arg.kind == ir::ProgramRef::Kind::Instruction && last_use[arg.index] == i &&
          !is_output[arg.index])
        results[arg.index].buffer.reset();
    }
  }
  backend::Outputs outputs;
  for (const uint32_t output : program.outputs)
    outputs.push_back(results[output].buffer);
  return outputs;
}

}  // namespace ember::fusion
