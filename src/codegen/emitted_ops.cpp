#include "codegen/emitted_ops.h"

#include <cstddef>
#include <iterator>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "codegen/kernel_dims.h"
#include "ember/error.h"
#include "ir/formulas.h"

namespace ember::codegen {
namespace {

/// Whether op is an enumerator of its op table (an op decoded from outside bytes may not be).
template <typename Enum>
bool in_table(Enum op) {
  return static_cast<std::size_t>(op) < ir::kOpCount<Enum>;
}

/// Whether the emitter writes a Cast from dtype to `to` (another dtype): between any two dtypes
/// but two float dtypes (a program computes in one float type).
bool casts(DType from, DType to) {
  return from != to && !(is_float(from) && is_float(to));
}

std::string dtype_text(DType dtype) {
  return std::string(dtype_name(dtype));
}

/// Whether op passes its (first) operand of dtype through: a cast to dtype, or an expand (whose
/// argument broadcasts as a program input).
bool is_identity(const ir::Op& op, DType dtype) {
  const auto* cast = std::get_if<ir::Cast>(&op);
  return (cast != nullptr && cast->dtype == dtype) || std::holds_alternative<ir::Expand>(op);
}

}  // namespace

bool has_storage(DType dtype) {
  return static_cast<std::size_t>(dtype) < std::size(kAllDTypes);
}

bool writes(const ir::Op& op, DType dtype) {
  if (!has_storage(dtype)) return false;
  const bool floats = is_float(dtype);
  const bool bools = dtype == DType::Bool;
  const bool ints = is_int(dtype);
  if (const auto* unary = std::get_if<ir::Unary>(&op)) {
    if (!in_table(unary->op)) return false;
    if (unary->op == ir::UnaryOp::Not) return bools;
    // neg, abs and sign take integers too (their formulas over the integer target).
    const bool integer_op = unary->op == ir::UnaryOp::Neg || unary->op == ir::UnaryOp::Abs ||
                            unary->op == ir::UnaryOp::Sign;
    return floats || (ints && integer_op);
  }
  // On integers, a division, remainder or power whose divisor or exponent is a tensor stays on
  // the host: ndarray throws for a zero divisor and a negative exponent, which a kernel cannot.
  // With the scalar on the right, ir::infer has refused those values already.
  const auto binary_op = [&](ir::BinaryOp o, bool tensor_right) {
    if (!in_table(o)) return false;
    if (!formula::is_float_binary(o)) return bools;
    const bool checked = o != ir::BinaryOp::Div && o != ir::BinaryOp::Rem && o != ir::BinaryOp::Pow;
    return floats || (ints && (checked || !tensor_right));
  };
  if (const auto* binary = std::get_if<ir::Binary>(&op)) return binary_op(binary->op, true);
  if (const auto* binary = std::get_if<ir::BinaryScalar>(&op))
    return binary_op(binary->op, binary->scalar_lhs);
  if (const auto* compare = std::get_if<ir::Compare>(&op)) return in_table(compare->op);
  // An integer of 64 bits compares with an Int scalar exactly and with a Float one in double
  // (ndarray): the kernel, which takes the value but not its kind, leaves those to the host.
  if (const auto* compare = std::get_if<ir::CompareScalar>(&op))
    return in_table(compare->op) && !(ints && dtype_size(dtype) == 8);
  if (std::holds_alternative<ir::Where>(op) || std::holds_alternative<ir::MaskFill>(op))
    return true;
  if (const auto* cast = std::get_if<ir::Cast>(&op))
    return has_storage(cast->dtype) && casts(dtype, cast->dtype);
  if (const auto* activation = std::get_if<ir::Activation>(&op))
    return in_table(activation->op) && floats;
  return false;
}

DType operand_dtype(const ir::Op& op, std::span<const DType> args) {
  return std::holds_alternative<ir::Where>(op) && args.size() > 1 ? args[1] : args.front();
}

std::string program_refusal(const ir::Program& program) {
  std::optional<DType> float_dtype;
  // A float dtype besides the program's first one: the kernel computes in one type.
  const auto mixes = [&](DType dtype) {
    if (!is_float(dtype)) return false;
    if (float_dtype && *float_dtype != dtype) return true;
    float_dtype = dtype;
    return false;
  };
  for (std::size_t k = 0; k < program.inputs.size(); ++k) {
    const ir::ProgramInput& input = program.inputs[k];
    const std::string which = "input " + std::to_string(k) + " ";
    if (!has_storage(input.dtype))
      return which + "has an unknown dtype (" + std::to_string(static_cast<int>(input.dtype)) + ")";
    if (mixes(input.dtype))
      return which + "has dtype " + dtype_text(input.dtype) + ", another float dtype than " +
             dtype_text(*float_dtype) + " (a program computes in one)";
    if (input.broadcast.size() > kProgramMaxRank)
      return which + "has " + std::to_string(input.broadcast.size()) + " dims, more than " +
             std::to_string(kProgramMaxRank);
  }
  for (std::size_t j = 0; j < program.instructions.size(); ++j) {
    const ir::Instruction& instruction = program.instructions[j];
    const std::string which =
        "instruction " + std::to_string(j) + " (" + ir::name(instruction.op) + ") ";
    std::vector<DType> args;
    std::vector<ir::TensorMeta> metas;
    for (const ir::ProgramRef arg : instruction.args) {
      const bool input = arg.kind == ir::ProgramRef::Kind::Input;
      if (input ? arg.index >= program.inputs.size() : arg.index >= j)
        return which + "reads " + (input ? "input " : "instruction ") + std::to_string(arg.index) +
               ", which it cannot";
      args.push_back(program.dtype_of(arg));
      metas.push_back({Shape{1}, args.back()});
    }
    if (args.empty()) return which + "has no operands";
    const DType dtype = operand_dtype(instruction.op, args);
    if (!(is_identity(instruction.op, dtype) && has_storage(dtype)) &&
        !writes(instruction.op, dtype))
      return which + "on " + dtype_text(dtype) +
             ": the emitters have no formula for this op on this dtype";
    if (ir::scalar_of(instruction.op) && !instruction.constant)
      return which + "has a scalar but no constant";
    try {
      // An expand's shape is the first execution's, not the metas' [1]: it passes its dtype on.
      const bool expand = std::holds_alternative<ir::Expand>(instruction.op);
      if (expand && args.size() != 1)
        return which + "has " + std::to_string(args.size()) + " operands, not 1";
      const DType result = expand ? dtype : ir::infer(instruction.op, metas)[0].dtype;
      if (result != instruction.dtype)
        return which + "on " + dtype_text(dtype) + " gives " + dtype_text(result) + ", not " +
               dtype_text(instruction.dtype);
    } catch (const InvalidArgument& e) {
      return which + "on " + dtype_text(dtype) + ": " + e.what();
    }
    if (mixes(instruction.dtype))
      return which + "gives " + dtype_text(instruction.dtype) + ", another float dtype than " +
             dtype_text(*float_dtype) + " (a program computes in one)";
  }
  if (program.outputs.empty()) return "the program stores nothing (no outputs)";
  for (const uint32_t output : program.outputs)
    if (output >= program.instructions.size())
      return "output " + std::to_string(output) + " is no instruction of the program's " +
             std::to_string(program.instructions.size());
  return "";
}

bool is_identifier(std::string_view name) {
  const auto letter = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  };
  if (name.empty() || !letter(name.front())) return false;
  for (const char c : name)
    if (!letter(c) && !(c >= '0' && c <= '9')) return false;
  return true;
}

}  // namespace ember::codegen
