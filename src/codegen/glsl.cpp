// The GLSL emitter's target (glsl.h): the primitives of formulas.h as GLSL statements, and how an
// element of each dtype is read from and written to a storage buffer.
#include "codegen/glsl.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>

#include "ember/error.h"

namespace ember::codegen {
namespace {

/// The exact GLSL expression of a float: from its bits.
std::string float_literal(float v) {
  uint32_t bits = 0;
  std::memcpy(&bits, &v, sizeof bits);
  return "uintBitsToFloat(" + hex_word(bits) + ")";
}

/// The exact GLSL expression of a double: from its two words.
std::string double_literal(double v) {
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof bits);
  return "packDouble2x32(uvec2(" + hex_word(static_cast<uint32_t>(bits)) + ", " +
         hex_word(static_cast<uint32_t>(bits >> 32)) + "))";
}

/// v as an element of the integer dtype holds it (wrapped, C++'s conversion), as int64.
int64_t wrapped_value(int64_t v, DType dtype) {
  switch (dtype) {
    case DType::I8:
      return static_cast<int8_t>(v);
    case DType::I16:
      return static_cast<int16_t>(v);
    case DType::I32:
      return static_cast<int32_t>(v);
    case DType::U8:
      return static_cast<uint8_t>(v);
    case DType::U16:
      return static_cast<uint16_t>(v);
    case DType::U32:
      return static_cast<uint32_t>(v);
    case DType::I64:
    case DType::U64:
    case DType::F64:
    case DType::F32:
    case DType::F16:
    case DType::BF16:
    case DType::Bool:
      break;
  }
  return v;
}

int bits_of(DType dtype) {
  return static_cast<int>(dtype_size(dtype)) * 8;
}

}  // namespace

formula::Primitives glsl_primitives(DType compute) {
  using formula::Primitive;
  formula::Primitives set = formula::primitives(
      {Primitive::constant, Primitive::lowest,   Primitive::add,      Primitive::sub,
       Primitive::mul,      Primitive::div,      Primitive::mul_add,  Primitive::min,
       Primitive::max,      Primitive::neg,      Primitive::abs,      Primitive::sqrt,
       Primitive::floor,    Primitive::ceil,     Primitive::round,    Primitive::lt,
       Primitive::le,       Primitive::gt,       Primitive::ge,       Primitive::eq,
       Primitive::ne,       Primitive::is_nan,   Primitive::mask_and, Primitive::mask_or,
       Primitive::mask_xor, Primitive::mask_not, Primitive::select});
  // GLSL's transcendental functions take floats only; erfc and erf are formulas.h's f32
  // approximations of exp and arithmetic (ShaderTarget::erfc, ShaderTarget::erf).
  if (compute == DType::F32)
    set |= formula::primitives({Primitive::exp, Primitive::log, Primitive::sin, Primitive::cos,
                                Primitive::tan, Primitive::tanh, Primitive::erfc, Primitive::erf});
  return set;
}

Glsl::Glsl(DType compute, std::string indent) : Glsl(compute, Statements(std::move(indent))) {}

Glsl::Glsl(DType compute, Statements statements)
    : compute_(compute), statements_(std::move(statements)) {
  if (compute != DType::F64 && compute != DType::F32 && !is_int(compute))
    throw InvalidArgument("[codegen] GLSL computes in f32, f64 or an integer dtype, not " +
                          std::string(dtype_name(compute)));
}

Glsl Glsl::on(DType compute) const {
  return Glsl(compute, statements_);
}

std::string_view Glsl::type() const {
  switch (compute_) {
    case DType::F64:
      return "double";
    case DType::I64:
      return "int64_t";
    case DType::U64:
      return "uint64_t";
    case DType::I32:
    case DType::I16:
    case DType::I8:
      return "int";
    case DType::U32:
    case DType::U16:
    case DType::U8:
      return "uint";
    case DType::F32:
    case DType::F16:
    case DType::BF16:
    case DType::Bool:
      break;
  }
  return "float";
}

void Glsl::unwritten(std::string_view primitive) const {
  throw InvalidArgument("[codegen] the GLSL target does not write the primitive " +
                        std::string(primitive) + " on " + std::string(dtype_name(compute_)));
}

Glsl::Value Glsl::define(std::string_view expression) const {
  // precise: no multiply and add of the shader contracted into one rounding.
  const std::string declaration =
      integer() ? std::string(type()) : "precise " + std::string(type());
  return statements_.append(declaration, expression);
}

Glsl::Mask Glsl::define_mask(std::string_view expression) const {
  return statements_.append_mask("bool", expression);
}

std::string Glsl::wrapped(const std::string& expression) const {
  if (!integer() || dtype_size(compute_) > 2) return expression;
  return "bitfieldExtract(" + expression + ", 0, " + std::to_string(bits_of(compute_)) + ")";
}

std::string Glsl::integer_literal(int64_t v) const {
  const int64_t value = wrapped_value(v, compute_);
  switch (compute_) {
    case DType::I64:
      // -2^63 has no literal: it is written as an expression.
      return value == std::numeric_limits<int64_t>::min() ? "(-9223372036854775807l - 1l)"
                                                          : "(" + std::to_string(value) + "l)";
    case DType::U64:
      return std::to_string(static_cast<uint64_t>(value)) + "ul";
    case DType::U32:
    case DType::U16:
    case DType::U8:
      return std::to_string(value) + "u";
    case DType::I32:
    case DType::I16:
    case DType::I8:
      return value == std::numeric_limits<int32_t>::min() ? "(-2147483647 - 1)"
                                                          : "(" + std::to_string(value) + ")";
    case DType::F64:
    case DType::F32:
    case DType::F16:
    case DType::BF16:
    case DType::Bool:
      break;
  }
  throw InvalidArgument("[codegen] no GLSL integer literal on " +
                        std::string(dtype_name(compute_)));
}

std::string Glsl::literal(double c) const {
  if (integer()) {
    if (!(std::abs(c) < 0x1p63))
      throw InvalidArgument("[codegen] the constant " + std::to_string(c) + " is no " +
                            std::string(dtype_name(compute_)));
    return integer_literal(static_cast<int64_t>(c));
  }
  return compute_ == DType::F64 ? double_literal(c) : float_literal(static_cast<float>(c));
}

std::string Glsl::rounded_to_odd(const std::string& x, DType /*from*/) const {
  return "float(" + x + ")";
}

std::string Glsl::load(DType dtype, const std::string& element) const {
  switch (dtype) {
    case DType::Bool:
      return define_mask("uint(" + element + ") != 0u");
    case DType::F16:
      return define("unpackHalf2x16(uint(" + element + ")).x");
    case DType::F64:
    case DType::F32:
      return define(element);
    case DType::I64:
    case DType::U64:
    case DType::I32:
    case DType::U32:
      return on(dtype).define(element);
    case DType::I16:
    case DType::I8:
      return on(dtype).define("int(" + element + ")");
    case DType::U16:
    case DType::U8:
      return on(dtype).define("uint(" + element + ")");
    case DType::BF16:
      break;
  }
  throw InvalidArgument("[codegen] GLSL kernels hold no " + std::string(dtype_name(dtype)) +
                        " elements");
}

std::string Glsl::store(DType dtype, const std::string& value) const {
  switch (dtype) {
    case DType::Bool:
      return "uint8_t(" + value + " ? 1u : 0u)";
    case DType::F16:
      return "uint16_t(ember_f16_bits(" + value + "))";
    case DType::I16:
      return "int16_t(" + value + ")";
    case DType::I8:
      return "int8_t(" + value + ")";
    case DType::U16:
      return "uint16_t(" + value + ")";
    case DType::U8:
      return "uint8_t(" + value + ")";
    case DType::F64:
    case DType::F32:
    case DType::I64:
    case DType::U64:
    case DType::I32:
    case DType::U32:
      return value;
    case DType::BF16:
      break;
  }
  throw InvalidArgument("[codegen] GLSL kernels hold no " + std::string(dtype_name(dtype)) +
                        " elements");
}

std::string Glsl::conditional(const std::string& condition, const std::string& then,
                              const std::string& otherwise) const {
  return condition + " ? " + then + " : " + otherwise;
}

Glsl::Value Glsl::lowest() const {
  if (integer()) unwritten("lowest");
  return define(compute_ == DType::F64 ? double_literal(std::numeric_limits<double>::lowest())
                                       : float_literal(std::numeric_limits<float>::lowest()));
}

Glsl::Value Glsl::pow(const Value& a, const Value& b) const {
  if (!integer()) unwritten("pow");
  return define(wrapped("ember_ipow(" + a + ", " + b + ")"));
}

std::string Glsl::comparand(const Value& x) const {
  // GLSL orders no bools: a Bool compares as 0 or 1, as in C.
  return is_mask(x) ? "uint(" + x + ")" : x;
}
Glsl::Mask Glsl::is_nan(const Value& x) const {
  if (integer()) return define_mask("false");
  // f32 from the bits, as WGSL's: a driver may assume no NaN and fold isnan (x != x) away.
  if (compute_ == DType::F32)
    return define_mask("(floatBitsToUint(" + x + ") & 0x7fffffffu) > 0x7f800000u");
  return define_mask("isnan(" + x + ")");
}

}  // namespace ember::codegen
