// Running a fused program on a backend without execute_fused: each instruction through
// execute, in order. Correct everywhere (the reference backend stays simple), but every
// intermediate is materialized; each is dropped after its last use.
#pragma once

#include <exception>
#include <span>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "ir/program.h"

namespace ember::fusion {

/// What a queued op's failure says: "out of memory" for std::bad_alloc and std::length_error
/// (whose what() is only the type or the container), else its message.
std::string failure_text(const std::exception& e);

/// op's one output computed on backend from args. A failure is rethrown as ExecutionError
/// "[fusion] queued <op> failed: <its message>".
backend::BufferPtr execute_queued(backend::Backend& backend, const ir::Op& op,
                                  std::span<const backend::Operand> args,
                                  const ir::TensorMeta& output);
/// The program's outputs computed op by op on backend. An op's failure is rethrown as
/// ExecutionError "[fusion] queued <op> failed: <its message>".
backend::Outputs run_op_by_op(backend::Backend& backend, const ir::Program& program,
                              std::span<const backend::Operand> inputs,
                              std::span<const Scalar> constants, const Shape& shape);

}  // namespace ember::fusion
