// The WGSL emitter's target (wgsl.h): the primitives of formulas.h as WGSL statements, and how an
// element of each dtype is read from and written to a storage buffer.
#include "codegen/wgsl.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "codegen/glsl.h"
#include "ember/error.h"

namespace ember::codegen {
namespace {

/// The exact WGSL expression of a float: from its bits.
std::string float_literal(float v) {
  return "bitcast<f32>(" + hex_word(std::bit_cast<uint32_t>(v)) + ")";
}

/// The bits of the element (of the compute type's width) whose value is v, wrapped, read back as
/// the integer it holds: sign-extended for a signed dtype.
int64_t element_value(int64_t v, DType dtype) {
  const int bits = static_cast<int>(dtype_size(dtype)) * 8;
  const uint64_t mask = (uint64_t{1} << bits) - 1;  // bits <= 32 here
  const uint64_t low = static_cast<uint64_t>(v) & mask;
  const bool negative = is_signed_int(dtype) && ((low >> (bits - 1)) & 1) != 0;
  return negative ? static_cast<int64_t>(low) - (int64_t{1} << bits) : static_cast<int64_t>(low);
}

}  // namespace

Wgsl::Wgsl(DType compute, std::string indent) : Wgsl(compute, Statements(std::move(indent))) {}

Wgsl::Wgsl(DType compute, Statements statements)
    : compute_(compute), statements_(std::move(statements)) {
  if (compute != DType::F32 && !(is_int(compute) && dtype_size(compute) <= 4))
    throw InvalidArgument(
        "[codegen] WGSL computes in f32 or an integer dtype of up to 32 bits, not " +
        std::string(dtype_name(compute)));
}

Wgsl Wgsl::on(DType compute) const {
  return Wgsl(compute, statements_);
}

std::string_view Wgsl::type() const {
  if (!integer()) return "f32";
  return is_signed_int(compute_) ? "i32" : "u32";
}

void Wgsl::unwritten(std::string_view primitive) const {
  throw InvalidArgument("[codegen] the WGSL target does not write the primitive " +
                        std::string(primitive) + " on " + std::string(dtype_name(compute_)));
}

Wgsl::Value Wgsl::define(std::string_view expression) const {
  return statements_.append("let", expression);
}

Wgsl::Mask Wgsl::define_mask(std::string_view expression) const {
  return statements_.append_mask("let", expression);
}

std::string Wgsl::conditional(const std::string& condition, const std::string& then,
                              const std::string& otherwise) const {
  return "select(" + otherwise + ", " + then + ", " + condition + ")";
}

std::string Wgsl::wrapped(const std::string& expression) const {
  if (!integer() || dtype_size(compute_) > 2) return expression;
  return "extractBits(" + expression + ", 0u, " + std::to_string(dtype_size(compute_) * 8) + "u)";
}

std::string Wgsl::integer_literal(int64_t v) const {
  if (!integer())
    throw InvalidArgument("[codegen] no WGSL integer literal on " +
                          std::string(dtype_name(compute_)));
  const int64_t value = element_value(v, compute_);
  if (!is_signed_int(compute_)) return std::to_string(value) + "u";
  // -2^31 has no literal: it is written as an expression.
  if (value == std::numeric_limits<int32_t>::min()) return "(-2147483647i - 1i)";
  return "(" + std::to_string(value) + "i)";
}

std::string Wgsl::literal(double c) const {
  if (integer()) {
    if (!(std::abs(c) < 0x1p63))
      throw InvalidArgument("[codegen] the constant " + std::to_string(c) + " is no " +
                            std::string(dtype_name(compute_)));
    return integer_literal(static_cast<int64_t>(c));
  }
  return float_literal(static_cast<float>(c));
}

std::string Wgsl::rounded_to_odd(const std::string& x, DType /*from*/) const {
  return "f32(" + x + ")";
}

std::string Wgsl::load(DType dtype, const std::string& element) const {
  switch (dtype) {
    case DType::Bool:
      return define_mask(element + " != 0u");
    case DType::F16:
      return define("unpack2x16float(" + element + ").x");
    case DType::F32:
      return define(element);
    case DType::I32:
    case DType::U32:
    case DType::U16:
    case DType::U8:
      return on(dtype).define(element);
    case DType::I16:
    case DType::I8:
      return on(dtype).define("extractBits(i32(" + element + "), 0u, " +
                              std::to_string(dtype_size(dtype) * 8) + "u)");
    case DType::F64:
    case DType::I64:
    case DType::U64:
    case DType::BF16:
      break;
  }
  throw InvalidArgument("[codegen] WGSL kernels hold no " + std::string(dtype_name(dtype)) +
                        " elements");
}

std::string Wgsl::store(DType dtype, const std::string& value) const {
  switch (dtype) {
    case DType::Bool:
      return "select(0u, 1u, " + value + ")";
    case DType::F16:
      return "ember_f16_bits(" + value + ")";
    case DType::I16:
    case DType::U16:
      return "(u32(" + value + ") & 0xffffu)";
    case DType::I8:
    case DType::U8:
      return "(u32(" + value + ") & 0xffu)";
    case DType::F32:
    case DType::I32:
    case DType::U32:
      return value;
    case DType::F64:
    case DType::I64:
    case DType::U64:
    case DType::BF16:
      break;
  }
  throw InvalidArgument("[codegen] WGSL kernels hold no " + std::string(dtype_name(dtype)) +
                        " elements");
}

Wgsl::Value Wgsl::lowest() const {
  if (integer()) unwritten("lowest");
  return define(float_literal(std::numeric_limits<float>::lowest()));
}

Wgsl::Value Wgsl::pow(const Value& a, const Value& b) const {
  if (!integer()) unwritten("pow");
  const std::string function = is_signed_int(compute_) ? "ember_ipow_i32" : "ember_ipow_u32";
  return define(wrapped(function + "(" + a + ", " + b + ")"));
}

std::string Wgsl::comparand(const Value& x) const {
  // WGSL orders no bools: a Bool compares as 0 or 1, as in C.
  return is_mask(x) ? "u32(" + x + ")" : x;
}
Wgsl::Mask Wgsl::is_nan(const Value& x) const {
  if (integer()) return define_mask("false");
  // From the bits: a compiler may take x != x for false.
  return define_mask("(bitcast<u32>(" + x + ") & 0x7fffffffu) > 0x7f800000u");
}

}  // namespace ember::codegen
