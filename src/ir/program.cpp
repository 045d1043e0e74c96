#include "ir/program.h"

#include <algorithm>
#include <string>
#include <type_traits>
#include <variant>

#include "ir/op_fields.h"

namespace ember::ir {
namespace {

/// The ops whose struct carries a `value` scalar.
template <typename Op>
constexpr bool kHasScalar =
    std::is_same_v<Op, ir::BinaryScalar> || std::is_same_v<Op, ir::CompareScalar> ||
    std::is_same_v<Op, ir::MaskFill>;

/// Values numbered inputs first, then instructions.
std::size_t value_index(const Program& program, ProgramRef ref) {
  return ref.kind == ProgramRef::Kind::Input ? ref.index : program.inputs.size() + ref.index;
}

}  // namespace

ir::Op Program::bound_op(std::size_t i, std::span<const Scalar> constants) const {
  const Instruction& instruction = instructions[i];
  ir::Op op = instruction.op;
  if (instruction.constant) {
    std::visit(
        [&](auto& o) {
          if constexpr (kHasScalar<std::decay_t<decltype(o)>>)
            o.value = constants[*instruction.constant];
        },
        op);
  }
  return op;
}

DType Program::dtype_of(ProgramRef ref) const {
  return ref.kind == ProgramRef::Kind::Input ? inputs[ref.index].dtype
                                             : instructions[ref.index].dtype;
}

std::string Program::describe() const {
  std::string text;
  for (const Instruction& instruction : instructions) {
    if (!text.empty()) text += ", ";
    text += ir::name(instruction.op);
  }
  return text;
}

std::optional<Scalar> scalar_of(const ir::Op& op) {
  return std::visit(
      [](const auto& o) -> std::optional<Scalar> {
        if constexpr (kHasScalar<std::decay_t<decltype(o)>>) {
          return o.value;
        } else {
          return std::nullopt;
        }
      },
      op);
}

std::vector<bool> broadcast_flags(const Shape& input, const Shape& output) {
  std::vector<bool> flags(input.rank());
  for (std::size_t d = 0; d < input.rank(); ++d)
    flags[d] = broadcasts_along(input, output, d);
  return flags;
}

bool broadcasts_along(const Shape& input, const Shape& output, std::size_t d) {
  const std::size_t lead = output.rank() - input.rank();
  return input[d] == 1 && output[lead + d] != 1;
}

SlotPlan plan_slots(const Program& program) {
  const std::size_t values = program.inputs.size() + program.instructions.size();
  std::vector<std::size_t> last_use(values, 0);
  for (std::size_t i = 0; i < program.instructions.size(); ++i) {
    for (const ProgramRef arg : program.instructions[i].args)
      last_use[value_index(program, arg)] = i;
  }
  std::vector<bool> is_output(program.instructions.size(), false);
  for (const uint32_t output : program.outputs)
    is_output[output] = true;

  SlotPlan plan;
  std::vector<int32_t> free_slots;
  const auto take_slot = [&] {
    if (free_slots.empty()) return plan.slot_count++;
    const int32_t slot = free_slots.back();
    free_slots.pop_back();
    return slot;
  };
  const auto slot_of = [&](ProgramRef ref) {
    return ref.kind == ProgramRef::Kind::Input ? plan.input_slots[ref.index]
                                               : plan.instruction_slots[ref.index];
  };
  for (std::size_t k = 0; k < program.inputs.size(); ++k)
    plan.input_slots.push_back(take_slot());
  for (std::size_t i = 0; i < program.instructions.size(); ++i) {
    const Instruction& instruction = program.instructions[i];
    // The slots of the arguments read for the last time here, each once.
    std::vector<std::pair<int32_t, DType>> dying;
    for (const ProgramRef arg : instruction.args) {
      const int32_t slot = slot_of(arg);
      const bool seen = std::ranges::any_of(dying, [&](const auto& d) { return d.first == slot; });
      if (last_use[value_index(program, arg)] == i && slot != SlotPlan::kNoSlot && !seen) {
        dying.emplace_back(slot, program.dtype_of(arg));
      }
    }
    int32_t slot = SlotPlan::kNoSlot;
    if (!is_output[i]) {
      const auto same_type =
          std::ranges::find_if(dying, [&](const auto& d) { return d.second == instruction.dtype; });
      if (same_type != dying.end()) {
        slot = same_type->first;
        dying.erase(same_type);
      } else {
        slot = take_slot();
      }
    }
    for (const auto& d : dying)
      free_slots.push_back(d.first);
    plan.instruction_slots.push_back(slot);
  }
  return plan;
}

Program lone_op_program(const Op& op, std::span<const TensorMeta> inputs,
                        const TensorMeta& output) {
  Program program;
  Instruction instruction{op, {}, output.dtype, std::nullopt};
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    program.inputs.push_back({inputs[k].dtype, broadcast_flags(inputs[k].shape, output.shape)});
    instruction.args.push_back({ProgramRef::Kind::Input, static_cast<uint32_t>(k)});
  }
  if (scalar_of(op)) instruction.constant = 0;
  program.instructions.push_back(std::move(instruction));
  program.outputs = {0};
  program.slots = plan_slots(program);
  return program;
}

std::string lone_op_key(const Op& op, std::span<const TensorMeta> inputs, DType output) {
  std::string key(1, static_cast<char>(op.index()));
  std::visit(
      [&](const auto& o) {
        for_each_field(o, [&](const auto& field) {
          using Field = std::decay_t<decltype(field)>;
          if constexpr (std::is_trivially_copyable_v<Field> && !std::is_same_v<Field, Scalar>)
            key.append(reinterpret_cast<const char*>(&field), sizeof field);
        });
      },
      op);
  for (const TensorMeta& input : inputs) {
    key += static_cast<char>(input.dtype);
    key += static_cast<char>(input.shape.rank());
  }
  key += static_cast<char>(output);
  return key;
}

}  // namespace ember::ir
