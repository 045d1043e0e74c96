// What the shading-language targets (Glsl, Wgsl) spell alike, written once: the comparisons (a
// Bool compared as 0 or 1, as in C), the mask logic, the built-in functions of one float argument
// (where glsl_primitives has them: WGSL's built-ins are GLSL's), and the functions neither
// language has (erf, erfc, expm1, log1p: an op whose formula needs one is refused). A target
// derives from ShaderTarget<Itself> and supplies, to it as a friend:
//   define_mask(e)               a new bool variable of e
//   comparand(x)                 x as an operand of a comparison
//   call(primitive, name, x)     the built-in name applied to x, if the target writes primitive
//   unwritten(name)              [[noreturn]]: the target does not write name on its type
//   kRound                       the name of round-half-to-even
#pragma once

#include <string>
#include <string_view>

#include "ir/formulas.h"

namespace ember::codegen {

template <typename Target>
class ShaderTarget {
 public:
  using Value = std::string;
  using Mask = std::string;

  Value sqrt(const Value& x) const { return self().call(formula::Primitive::sqrt, "sqrt", x); }
  Value floor(const Value& x) const { return self().call(formula::Primitive::floor, "floor", x); }
  Value ceil(const Value& x) const { return self().call(formula::Primitive::ceil, "ceil", x); }
  Value round(const Value& x) const {
    return self().call(formula::Primitive::round, Target::kRound, x);
  }
  Value exp(const Value& x) const { return self().call(formula::Primitive::exp, "exp", x); }
  Value log(const Value& x) const { return self().call(formula::Primitive::log, "log", x); }
  Value sin(const Value& x) const { return self().call(formula::Primitive::sin, "sin", x); }
  Value cos(const Value& x) const { return self().call(formula::Primitive::cos, "cos", x); }
  Value tan(const Value& x) const { return self().call(formula::Primitive::tan, "tan", x); }
  Value tanh(const Value& x) const { return self().call(formula::Primitive::tanh, "tanh", x); }
  Value expm1(const Value& /*x*/) const { return refused("expm1"); }
  Value log1p(const Value& /*x*/) const { return refused("log1p"); }
  Value erf(const Value& /*x*/) const { return refused("erf"); }
  Value erfc(const Value& /*x*/) const { return refused("erfc"); }

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
  [[noreturn]] Value refused(std::string_view name) const { self().unwritten(name); }
  Mask compared(const Value& a, std::string_view op, const Value& b) const {
    return self().define_mask(self().comparand(a) + " " + std::string(op) + " " +
                              self().comparand(b));
  }
};

}  // namespace ember::codegen
