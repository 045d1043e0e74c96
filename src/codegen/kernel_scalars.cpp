#include "codegen/kernel_scalars.h"

#include <cmath>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "codegen/emitted_ops.h"
#include "ember/error.h"
#include "ember/float16.h"
#include "ember/tensor_data.h"

namespace ember::codegen {
namespace {

/// s as an element of T holds it (ndarray's scalar_as: rounded once to a float type; a float
/// truncated and saturated, an int wrapped, a Bool 0 or 1 for an integer type).
template <typename T>
T element_of(const Scalar& s) {
  if (s.kind == Scalar::Kind::Float) return detail::convert_element<T>(s.f);
  if (s.kind == Scalar::Kind::Bool) return detail::convert_element<T>(s.i != 0);
  return detail::convert_element<T>(s.i);
}

/// The rounded value of s as an element of T holds it, as a double.
template <typename T>
double rounded(const Scalar& s) {
  return detail::convert_element<double>(element_of<T>(s));
}

/// s as an element of the integer type T holds it, as int64 (a u64 above 2^63 - 1 by its bits).
template <typename T>
int64_t integer_element(const Scalar& s) {
  return static_cast<int64_t>(element_of<T>(s));
}

/// A value that 0 and 1 compare with as with s, held exactly by every float type (-0.5, 0, 0.5,
/// 1, 1.5 or NaN): ndarray compares a Bool tensor with the scalar's exact value.
double bool_comparand(const Scalar& s) {
  if (s.kind != Scalar::Kind::Float) {
    if (s.i < 0) return -0.5;
    return s.i == 0 ? 0.0 : s.i == 1 ? 1.0 : 1.5;
  }
  if (std::isnan(s.f)) return s.f;
  if (s.f < 0) return -0.5;
  if (s.f == 0) return 0.0;
  if (s.f < 1) return 0.5;
  return s.f == 1 ? 1.0 : 1.5;
}

}  // namespace

double kernel_parameter(const ir::Op& op, DType dtype) {
  if (const auto* activation = std::get_if<ir::Activation>(&op))
    return ir::parameter_of(*activation);
  const std::optional<Scalar> value = ir::scalar_of(op);
  if (!value) return 0.0;
  if (std::holds_alternative<ir::CompareScalar>(op) && dtype == DType::Bool)
    return bool_comparand(*value);
  // An integer of up to 32 bits converts to double exactly, so that it compares with the double
  // as ndarray compares it with the scalar: a Float by C++'s comparison in double, an Int exactly
  // (its double may round beyond 2^53, where it still lies beyond every such integer).
  if (std::holds_alternative<ir::CompareScalar>(op) && is_int(dtype) && dtype_size(dtype) <= 4)
    return value->as_double();
  switch (dtype) {
    case DType::F64:
      return rounded<double>(*value);
    case DType::F32:
      return rounded<float>(*value);
    case DType::F16:
      return rounded<Half>(*value);
    case DType::BF16:
      return rounded<BFloat16>(*value);
    case DType::Bool:
      return rounded<bool>(*value);
    default:
      break;
  }
  throw InvalidArgument("[" + ir::name(op) + "] no kernel scalar for dtype " +
                        std::string(dtype_name(dtype)) +
                        " (it takes f64, f32, f16, bf16 and bool, and a comparison's scalar on an "
                        "integer dtype of up to 32 bits; kernel_integer_parameter the other "
                        "integer scalars)");
}

int64_t kernel_integer_parameter(const ir::Op& op, DType dtype) {
  const std::optional<Scalar> value = ir::scalar_of(op);
  if (!value) return 0;
  if (!std::holds_alternative<ir::CompareScalar>(op)) {
    switch (dtype) {
      case DType::I64:
        return integer_element<int64_t>(*value);
      case DType::I32:
        return integer_element<int32_t>(*value);
      case DType::I16:
        return integer_element<int16_t>(*value);
      case DType::I8:
        return integer_element<int8_t>(*value);
      case DType::U64:
        return integer_element<uint64_t>(*value);
      case DType::U32:
        return integer_element<uint32_t>(*value);
      case DType::U16:
        return integer_element<uint16_t>(*value);
      case DType::U8:
        return integer_element<uint8_t>(*value);
      default:
        break;
    }
  }
  throw InvalidArgument("[" + ir::name(op) + "] no integer kernel scalar for dtype " +
                        std::string(dtype_name(dtype)) +
                        " (it takes the scalar of an op other than a comparison on an integer "
                        "dtype)");
}

bool takes_integer_scalar(const ir::Op& op, DType dtype) {
  return is_int(dtype) && ir::scalar_of(op).has_value() &&
         !std::holds_alternative<ir::CompareScalar>(op);
}
std::vector<KernelScalar> program_scalars(const ir::Program& program,
                                          std::span<const Scalar> constants) {
  std::vector<KernelScalar> scalars;
  for (std::size_t j = 0; j < program.instructions.size(); ++j) {
    const ir::Instruction& instruction = program.instructions[j];
    if (!ir::scalar_of(instruction.op)) continue;
    if (!instruction.constant || *instruction.constant >= constants.size())
      throw InvalidArgument("[program_kernel] instruction " + std::to_string(j) + " (" +
                            ir::name(instruction.op) + ") has no constant among the " +
                            std::to_string(constants.size()) + " given");
    std::vector<DType> args;
    for (const ir::ProgramRef arg : instruction.args)
      args.push_back(program.dtype_of(arg));
    if (args.empty())
      throw InvalidArgument("[program_kernel] instruction " + std::to_string(j) + " (" +
                            ir::name(instruction.op) + ") has no operands");
    const ir::Op op = program.bound_op(j, constants);
    const DType dtype = operand_dtype(instruction.op, args);
    if (takes_integer_scalar(op, dtype)) {
      scalars.emplace_back(kernel_integer_parameter(op, dtype));
    } else {
      scalars.emplace_back(kernel_parameter(op, dtype));
    }
  }
  return scalars;
}

}  // namespace ember::codegen
