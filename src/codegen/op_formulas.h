// An elementwise op, and a whole fused program, written out over an emitter's target (CudaC,
// Glsl): which formula of ir/formulas.h each op takes, the conversions between dtypes, and the
// rounding of f16 and bf16 results, decided once for every GPU language. A target is a formulas.h
// target whose values are the names of variables of its statements, with also:
//   on(dtype)               a target computing in dtype, appending to the same statements
//   define(e), define_mask(e), type(), literal(c), integer_literal(v)
//   cast(e)                 e converted to the target's compute type ("(int)e", "int(e)")
//   rounded_to_odd(e, d)    the float holding integer e (of dtype d, 32 or 64 bits) rounded to
//                           odd, which f16 and bf16 then round once
//   load(dtype, element)    an element of dtype read into a variable; store(dtype, value) the
//                           expression writing value as an element of dtype
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "codegen/emitted_ops.h"
#include "ember/error.h"
#include "ir/formulas.h"
#include "ir/ops.h"
#include "ir/program.h"

namespace ember::codegen {
namespace lowering {

/// The target computing op's values on dtype: m itself for a float dtype and Bool (masks), a
/// target on the integer dtype sharing m's statements otherwise.
template <typename Target>
Target target_for(const Target& m, DType dtype) {
  return is_int(dtype) ? m.on(dtype) : m;
}

/// The expression "condition ? then : otherwise" on target t: C's and GLSL's ?: (nested to the
/// right without parentheses), or the target's own spelling where it has one (WGSL's select).
template <typename Target>
std::string conditional(const Target& t, const std::string& condition, const std::string& then,
                        const std::string& otherwise) {
  if constexpr (requires { t.conditional(condition, then, otherwise); })
    return t.conditional(condition, then, otherwise);
  else
    return condition + " ? " + then + " : " + otherwise;
}

/// x, a variable of from (a target on `from`'s values, as target_for gives it), converted to
/// `to` as ember converts an element (detail::convert_element), a variable of to (target_for of
/// `to`). Neither dtype is Bool, and they are not two float dtypes.
template <typename Target>
std::string convert(const Target& from, DType from_dtype, const Target& to, DType to_dtype,
                    const std::string& x) {
  if (is_int(from_dtype) && is_int(to_dtype)) return to.define(to.cast(x));  // wraps
  if (is_int(from_dtype)) {
    // f32 and f64 round to nearest (C's and GLSL's conversion); f16 and bf16 round from the float
    // that holds the integer rounded to odd, as ember does, so that they round once (the store, or
    // the rounding of an f16 or bf16 result, follows).
    const bool half = to_dtype == DType::F16 || to_dtype == DType::BF16;
    if (half && dtype_size(from_dtype) >= 4) return to.define(to.rounded_to_odd(x, from_dtype));
    return to.define(to.cast(x));
  }
  // A float to an integer: truncated toward zero and saturated, NaN 0, compared in the float's
  // type with the integer type's bounds converted to it (detail::convert_element).
  const auto bound = [&](bool lowest) {
    const double value = [&] {
      switch (to_dtype) {
        case DType::I64:
          return lowest ? -0x1p63 : static_cast<double>(std::numeric_limits<int64_t>::max());
        case DType::I32:
          return lowest ? -0x1p31 : static_cast<double>(std::numeric_limits<int32_t>::max());
        case DType::I16:
          return lowest ? -0x1p15 : static_cast<double>(std::numeric_limits<int16_t>::max());
        case DType::I8:
          return lowest ? -0x1p7 : static_cast<double>(std::numeric_limits<int8_t>::max());
        case DType::U64:
          return lowest ? 0.0 : static_cast<double>(std::numeric_limits<uint64_t>::max());
        case DType::U32:
          return lowest ? 0.0 : static_cast<double>(std::numeric_limits<uint32_t>::max());
        case DType::U16:
          return lowest ? 0.0 : static_cast<double>(std::numeric_limits<uint16_t>::max());
        default:
          return lowest ? 0.0 : static_cast<double>(std::numeric_limits<uint8_t>::max());
      }
    }();
    // (From)max: the double of a 64-bit max is 2^63 or 2^64, as C++ rounds it; a float literal
    // rounds it once more, to nearest, as static_cast<float> of the integer does.
    return from.literal(value);
  };
  const std::string lowest = is_signed_int(to_dtype)
                                 ? to.integer_literal(std::numeric_limits<int64_t>::min() >>
                                                      (64 - 8 * dtype_size(to_dtype)))
                                 : to.integer_literal(0);
  const std::string max =
      is_signed_int(to_dtype)
          ? to.integer_literal(std::numeric_limits<int64_t>::max() >>
                               (64 - 8 * dtype_size(to_dtype)))
          : to.integer_literal(static_cast<int64_t>(std::numeric_limits<uint64_t>::max() >>
                                                    (64 - 8 * dtype_size(to_dtype))));
  return to.define(
      conditional(to, x + " != " + x, to.integer_literal(0),
                  conditional(to, x + " <= " + bound(true), lowest,
                              conditional(to, x + " >= " + bound(false), max, to.cast(x)))));
}

}  // namespace lowering

/// op (writes(op, dtype), or a Cast to dtype itself) on args, variables of m (or of m.on(...) for
/// integer values): its formula's result. dtype is op's first tensor operand's (Where's a). An
/// integer dtype's values are computed on m.on(dtype), whose primitives are ndarray's integer
/// arithmetic. scalar is the expression of op's scalar or activation parameter
/// (kernel_parameter's or kernel_integer_parameter's value), read only by the ops that take one.
template <typename Target>
std::string evaluate(const Target& m, const ir::Op& op, DType dtype,
                     std::span<const std::string> args, std::string_view scalar) {
  // The target of dtype's values: m for a float dtype and Bool, the integer's own target for an
  // integer dtype.
  const Target t = lowering::target_for(m, dtype);
  // The scalar as a value of the compute type (an integer scalar is of the integer's type
  // already: kernel_integer_parameter), or as a mask where the elements are Bool (the scalar is
  // 0 or 1 there: kernel_parameter).
  const auto value = [&] {
    return is_int(dtype) ? t.define(t.cast(std::string(scalar))) : m.define(scalar);
  };
  const auto scalar_of_dtype = [&] {
    return dtype == DType::Bool ? formula::to_bool(m, value()) : value();
  };
  if (const auto* unary = std::get_if<ir::Unary>(&op)) {
    if (formula::is_float_unary(unary->op)) return formula::unary(t, unary->op, args[0]);
    if (unary->op == ir::UnaryOp::Not) return formula::bool_not(m, args[0]);
    return formula::float_predicate(m, unary->op, args[0]);
  }
  const auto binary_formula = [&](ir::BinaryOp o, const std::string& a, const std::string& b) {
    return formula::is_float_binary(o) ? formula::binary(t, o, a, b) : formula::logical(m, o, a, b);
  };
  if (const auto* binary = std::get_if<ir::Binary>(&op))
    return binary_formula(binary->op, args[0], args[1]);
  if (const auto* binary = std::get_if<ir::BinaryScalar>(&op)) {
    const std::string s = scalar_of_dtype();
    return binary->scalar_lhs ? binary_formula(binary->op, s, args[0])
                              : binary_formula(binary->op, args[0], s);
  }
  if (const auto* compare = std::get_if<ir::Compare>(&op))
    return formula::compare(t, compare->op, args[0], args[1]);
  if (const auto* compare = std::get_if<ir::CompareScalar>(&op)) {
    // A Bool x compares as the float 0 or 1 with kernel_parameter's stand-in for the value; an
    // integer x (of up to 32 bits) as its double, exact, with the value's double.
    if (is_int(dtype)) {
      const Target d = m.on(DType::F64);
      return formula::compare(d, compare->op, d.define(d.cast(args[0])), d.define(scalar));
    }
    const std::string x = dtype == DType::Bool ? formula::from_bool(m, args[0]) : args[0];
    return formula::compare(m, compare->op, x, m.define(scalar));
  }
  if (std::holds_alternative<ir::Where>(op)) return formula::where(t, args[0], args[1], args[2]);
  if (std::holds_alternative<ir::MaskFill>(op))
    return formula::mask_fill(t, args[0], args[1], scalar_of_dtype());
  if (const auto* cast = std::get_if<ir::Cast>(&op)) {
    if (cast->dtype == dtype) return args[0];
    const Target to = lowering::target_for(m, cast->dtype);
    if (cast->dtype == DType::Bool) return formula::to_bool(t, args[0]);
    if (dtype == DType::Bool) return formula::from_bool(to, args[0]);
    return lowering::convert(t, dtype, to, cast->dtype, args[0]);
  }
  if (const auto* activation = std::get_if<ir::Activation>(&op))
    return formula::activation(m, activation->op, args[0], [&] { return m.define(scalar); });
  // A program input broadcasts as it is read: the expand itself is the identity.
  if (std::holds_alternative<ir::Expand>(op)) return args[0];
  throw InvalidArgument("[" + ir::name(op) + "] the emitters have no formula for this op");
}

/// A program's values over one target: the target's statements and each instruction's result.
struct ProgramBody {
  std::string statements;
  std::vector<std::string> results;
};

/// The statements computing program over m (an emitter's target of the program's compute type),
/// input k's element read by the expression elements[k], each instruction's scalar (if any)
/// from the kernel's variable scalar<j>.
template <typename Target>
ProgramBody program_body(const Target& m, const ir::Program& program,
                         const std::vector<std::string>& elements) {
  std::vector<std::string> inputs;
  for (std::size_t k = 0; k < program.inputs.size(); ++k)
    inputs.push_back(m.load(program.inputs[k].dtype, elements[k]));
  std::vector<std::string> results;
  for (std::size_t j = 0; j < program.instructions.size(); ++j) {
    const ir::Instruction& instruction = program.instructions[j];
    std::vector<std::string> args;
    std::vector<DType> arg_dtypes;
    for (const ir::ProgramRef arg : instruction.args) {
      const bool input = arg.kind == ir::ProgramRef::Kind::Input;
      args.push_back(input ? inputs[arg.index] : results[arg.index]);
      arg_dtypes.push_back(program.dtype_of(arg));
    }
    std::string scalar;
    if (const auto* activation = std::get_if<ir::Activation>(&instruction.op))
      scalar = m.literal(ir::parameter_of(*activation));
    else if (ir::scalar_of(instruction.op))
      scalar = "scalar" + std::to_string(j);
    std::string result =
        evaluate(m, instruction.op, operand_dtype(instruction.op, arg_dtypes), args, scalar);
    // An f16 or bf16 result is rounded to its dtype, as running the op alone stores it; where,
    // mask_fill, expands and casts from Bool choose among values of the dtype already (0 and 1, a
    // rounded scalar). A cast from an integer is rounded here (from its float rounded to odd).
    const auto* cast = std::get_if<ir::Cast>(&instruction.op);
    const bool selects = std::holds_alternative<ir::Where>(instruction.op) ||
                         std::holds_alternative<ir::MaskFill>(instruction.op) ||
                         std::holds_alternative<ir::Expand>(instruction.op) ||
                         (cast != nullptr && !is_int(arg_dtypes.front()));
    if ((instruction.dtype == DType::F16 || instruction.dtype == DType::BF16) && !selects)
      result = m.load(instruction.dtype, m.store(instruction.dtype, result));
    results.push_back(std::move(result));
  }
  return {m.statements(), std::move(results)};
}

}  // namespace ember::codegen
