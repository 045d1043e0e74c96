// Program: a fused elementwise program, the unit the fusion decorator hands to a backend's
// execute_fused (backend.h). It computes a straight-line list of elementwise instructions over
// ONE output shape, reading each input once (an input may broadcast into the shape) and storing
// only the results listed in outputs. Programs hold no sizes and no scalar values, so one
// program serves every execution of the same op graph (src/fusion/program_cache.h): the
// shape and the constants come with each execution.
//
// Element types: every input, instruction result and output has one of the dtypes that the
// backend running it declared in its backend::FusionSupport (flex: F32 or Bool).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ember/dtype.h"
#include "ember/shape.h"
#include "ir/ops.h"

namespace ember::ir {

/// Where an instruction argument comes from: program input `index`, or the result of
/// instruction `index` (always an earlier one).
struct ProgramRef {
  enum class Kind : uint8_t { Input, Instruction };
  Kind kind;
  uint32_t index;
  friend bool operator==(const ProgramRef&, const ProgramRef&) = default;
};

struct ProgramInput {
  DType dtype;
  /// One flag per input dim (dims aligned on the right with the output's, NumPy style): true
  /// where the input has size 1 and the output does not, i.e. the input repeats along it.
  std::vector<bool> broadcast;
};

struct Instruction {
  /// An elementwise op (Unary, Binary, BinaryScalar, Compare, CompareScalar, Where, MaskFill,
  /// Cast, Activation), or, where the backend fuses them (FusionSupport::fuses_expand), an Expand:
  /// the identity of its one argument, a program input that broadcasts into the shape (its own
  /// shape field is the first execution's; the execution's shape is the one that counts). The
  /// scalar of a BinaryScalar, CompareScalar or MaskFill is not part of the program: bound_op
  /// takes it from the execution's constants[constant].
  ir::Op op;
  std::vector<ProgramRef> args;
  /// The result's element type (its shape is the program's).
  DType dtype;
  std::optional<uint32_t> constant;
};

/// Which scratch slot holds each value while a tile-by-tile backend runs the program: slots
/// are reused once a value is dead, and a result may take the slot of an argument of the same
/// dtype that dies at its instruction (elementwise ops may run in place). Outputs have no slot
/// (kNoSlot): they are computed straight into the output tensor.
struct SlotPlan {
  static constexpr int32_t kNoSlot = -1;
  std::vector<int32_t> input_slots;
  std::vector<int32_t> instruction_slots;
  int32_t slot_count = 0;
};

/// What a backend compiled from a program (flex: machine code, jit_program.h), built on its first
/// execution and kept with it: the cache shares one program between every execution of its op
/// graph, so a loop compiles it once. Thread-safe. A copied program starts with nothing built.
class CompiledForm {
 public:
  CompiledForm() = default;
  CompiledForm(const CompiledForm& /*other*/) {}
  CompiledForm& operator=(const CompiledForm& /*other*/) { return *this; }

  /// What build() (returning std::shared_ptr<const T>) gave on the first call; a null result is
  /// kept too, so build runs once.
  template <typename T, typename Build>
  const T* get(const Build& build) const {
    if (!built_.load(std::memory_order_acquire)) {
      const std::lock_guard lock(mutex_);
      if (!built_.load(std::memory_order_relaxed)) {
        form_ = std::shared_ptr<const T>(build());
        built_.store(true, std::memory_order_release);
      }
    }
    return static_cast<const T*>(form_.get());
  }

 private:
  mutable std::mutex mutex_;  // held while building
  mutable std::shared_ptr<const void> form_;
  mutable std::atomic<bool> built_{false};
};

struct Program {
  std::vector<ProgramInput> inputs;
  std::vector<Instruction> instructions;
  /// The instructions whose results are stored, in the order execute_fused returns them.
  std::vector<uint32_t> outputs;
  SlotPlan slots;
  CompiledForm compiled;

  /// Instruction i's op with its scalar set to constants[instruction.constant].
  ir::Op bound_op(std::size_t i, std::span<const Scalar> constants) const;
  /// The element type of a value.
  DType dtype_of(ProgramRef ref) const;
  /// The ops, for messages: "mul, add_scalar, tanh".
  std::string describe() const;
};

/// The scalar operand of op when it has one (BinaryScalar, CompareScalar, MaskFill).
std::optional<Scalar> scalar_of(const ir::Op& op);
/// The broadcast flags of ProgramInput for an input of shape input in an output of shape output.
std::vector<bool> broadcast_flags(const Shape& input, const Shape& output);
/// broadcast_flags(input, output)[d], without building the flags.
bool broadcasts_along(const Shape& input, const Shape& output, std::size_t d);
/// The slot plan of a program whose inputs, instructions and outputs are set.
SlotPlan plan_slots(const Program& program);
/// The program computing op (an elementwise op) alone, with its inputs (of inputs' metadata) as
/// the program's inputs and its result (of output's) as its output: the form in which a GPU
/// backend runs a lone op through its program kernels. Its constant, where op has a scalar, is
/// constant 0 (op's own scalar).
Program lone_op_program(const Op& op, std::span<const TensorMeta> inputs, const TensorMeta& output);
/// What lone_op_program's kernel source depends on: op's kind and parameters (its scalar, a
/// kernel parameter, left out), and its inputs' dtypes and ranks and the output's dtype. A
/// backend keeps a lone op's kernel under it: building and hashing the source on every call was
/// most of a lone op's host time.
std::string lone_op_key(const Op& op, std::span<const TensorMeta> inputs, DType output);

}  // namespace ember::ir
