// What the shading-language targets (Glsl, Wgsl) spell alike, written once: the arithmetic
// (integers wrapped to 8 or 16 bits by the target), division and remainder with ndarray's integer
// semantics, min, max, abs and select through the target's conditional (GLSL's ?:, WGSL's
// select), the comparisons (a Bool compared as 0 or 1, as in C), the mask logic, the built-in
// functions of one float argument where glsl_primitives has them (WGSL's built-ins are GLSL's),
// and the functions neither language has (expm1, log1p: an op whose formula needs one is refused;
// erfc and erf on f32 are formulas.h's approximations). A target derives from
// ShaderTarget<Itself> and supplies, to it as a friend:
//   compute(), type()              its compute dtype and the language's name of it
//   define(e), define_mask(e), is_mask(name), literal(c), integer_literal(v)
//   conditional(c, a, b)           the expression "c ? a : b"
//   wrapped(e)                     e wrapped to the compute dtype's width (8 or 16 bits)
//   comparand(x)                   x as an operand of a comparison
//   unwritten(name)                [[noreturn]]: the target does not write name on its type
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "ember/dtype.h"
#include "ir/formulas.h"

namespace ember::codegen {

/// bits as the shading languages' hexadecimal u32 literal ("0x3f800000u"): their float constants
/// are written from their bits, exact.
inline std::string hex_word(uint32_t bits) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08xu", bits);
  return text;
}

/// The formulas.h primitives the GLSL and WGSL targets write on compute (F32 or F64): the IEEE
/// arithmetic, min, max, mul_add, rounding, the comparisons, masks and select on both; exp, log,
/// sin, cos, tan and tanh on F32 only (the languages' transcendental functions take floats only).
formula::Primitives glsl_primitives(DType compute);

template <typename Target>
class ShaderTarget {
 public:
  using Value = std::string;
  using Mask = std::string;

  /// x converted to the compute type (wrapped to 8 or 16 bits for those dtypes).
  std::string cast(const std::string& x) const {
    return self().wrapped(std::string(self().type()) + "(" + x + ")");
  }

  Value constant(double c) const { return self().define(self().literal(c)); }
  Value add(const Value& a, const Value& b) const {
    return self().define(self().wrapped(a + " + " + b));
  }
  Value sub(const Value& a, const Value& b) const {
    return self().define(self().wrapped(a + " - " + b));
  }
  Value mul(const Value& a, const Value& b) const {
    return self().define(self().wrapped(a + " * " + b));
  }
  Value div(const Value& a, const Value& b) const {
    // Truncated; MIN / -1 wraps to MIN (the negation, wrapped) instead of overflowing.
    if (is_signed_int(self().compute()))
      return chosen(b + " == " + self().integer_literal(-1), self().wrapped("-" + a),
                    a + " / " + b);
    return self().define(a + " / " + b);
  }
  Value mul_add(const Value& a, const Value& b, const Value& c) const {
    if (is_int(self().compute())) refused("mul_add");
    return self().define("fma(" + a + ", " + b + ", " + c + ")");
  }
  Value min(const Value& a, const Value& b) const { return chosen(b + " < " + a, b, a); }
  Value max(const Value& a, const Value& b) const { return chosen(a + " < " + b, b, a); }
  Value fmod(const Value& a, const Value& b) const {
    if (!is_int(self().compute())) refused("fmod");
    // The truncated remainder, a - (a / b) * b; MIN % -1 (which overflows) is 0.
    if (is_signed_int(self().compute()))
      return chosen(b + " == " + self().integer_literal(-1), self().integer_literal(0),
                    self().wrapped(a + " - (" + a + " / " + b + ") * " + b));
    return self().define(a + " % " + b);
  }
  Value neg(const Value& x) const {
    if (is_int(self().compute()) && !is_signed_int(self().compute()))
      return self().define(self().wrapped(self().integer_literal(0) + " - " + x));
    return self().define(self().wrapped("-" + x));
  }
  Value abs(const Value& x) const {
    if (!is_int(self().compute())) return self().define("abs(" + x + ")");
    if (!is_signed_int(self().compute())) return x;
    return chosen(x + " < " + self().integer_literal(0), self().wrapped("-" + x), x);
  }
  Value select(const Mask& m, const Value& a, const Value& b) const {
    const std::string expression = self().conditional(m, a, b);
    return self().is_mask(a) && self().is_mask(b) ? self().define_mask(expression)
                                                  : self().define(expression);
  }

  Value sqrt(const Value& x) const { return call(formula::Primitive::sqrt, "sqrt", x); }
  Value floor(const Value& x) const { return call(formula::Primitive::floor, "floor", x); }
  Value ceil(const Value& x) const { return call(formula::Primitive::ceil, "ceil", x); }
  /// Round half to even, written from floor on the float types (formulas.h): a driver's own
  /// (GLSL's roundEven, WGSL's round) truncated halves of doubles on lavapipe.
  Value round(const Value& x) const {
    if (is_int(self().compute())) refused("round");
    return formula::round_half_even_from_floor(self(), x);
  }
  Value exp(const Value& x) const { return call(formula::Primitive::exp, "exp", x); }
  Value log(const Value& x) const { return call(formula::Primitive::log, "log", x); }
  Value sin(const Value& x) const { return call(formula::Primitive::sin, "sin", x); }
  Value cos(const Value& x) const { return call(formula::Primitive::cos, "cos", x); }
  Value tan(const Value& x) const { return call(formula::Primitive::tan, "tan", x); }
  Value tanh(const Value& x) const { return call(formula::Primitive::tanh, "tanh", x); }
  Value expm1(const Value& /*x*/) const { return refused("expm1"); }
  Value log1p(const Value& /*x*/) const { return refused("log1p"); }
  /// erf on f32 by formulas.h's composite of its series and erfc_rational (relative error below
  /// 2.5e-7: GELU's gradient stays on the device), none on other types.
  Value erf(const Value& x) const {
    if (!computes(formula::Primitive::erf)) refused("erf");
    return formula::erf_from_erfc(self(), x);
  }
  /// erfc on f32 by formulas.h's rational approximation (relative error below 1.2e-7, an f32 fit:
  /// GELU stays on the device), none on other types.
  Value erfc(const Value& x) const {
    if (!computes(formula::Primitive::erfc)) refused("erfc");
    return formula::erfc_rational(self(), x);
  }

  Mask lt(const Value& a, const Value& b) const { return compared(a, "<", b); }
  Mask le(const Value& a, const Value& b) const { return compared(a, "<=", b); }
  Mask gt(const Value& a, const Value& b) const { return compared(a, ">", b); }
  Mask ge(const Value& a, const Value& b) const { return compared(a, ">=", b); }
  Mask eq(const Value& a, const Value& b) const { return compared(a, "==", b); }
  Mask ne(const Value& a, const Value& b) const { return compared(a, "!=", b); }
  Mask mask_and(const Mask& a, const Mask& b) const { return self().define_mask(a + " && " + b); }
  Mask mask_or(const Mask& a, const Mask& b) const { return self().define_mask(a + " || " + b); }
  Mask mask_xor(const Mask& a, const Mask& b) const { return self().define_mask(a + " != " + b); }
  Mask mask_not(const Mask& a) const { return self().define_mask("!" + a); }

 private:
  const Target& self() const { return static_cast<const Target&>(*this); }
  /// The variable of "c ? a : b".
  Value chosen(const std::string& c, const std::string& a, const std::string& b) const {
    return self().define(self().conditional(c, a, b));
  }
  /// Whether glsl_primitives has primitive on the (float) compute type.
  bool computes(formula::Primitive primitive) const {
    return !is_int(self().compute()) &&
           glsl_primitives(self().compute()).test(static_cast<std::size_t>(primitive));
  }
  /// The built-in function applied to x, where the target computes primitive.
  Value call(formula::Primitive primitive, std::string_view function, const Value& x) const {
    if (!computes(primitive)) refused(function);
    return self().define(std::string(function) + "(" + x + ")");
  }
  [[noreturn]] Value refused(std::string_view name) const { self().unwritten(name); }
  Mask compared(const Value& a, std::string_view op, const Value& b) const {
    return self().define_mask(self().comparand(a) + " " + std::string(op) + " " +
                              self().comparand(b));
  }
};

}  // namespace ember::codegen
