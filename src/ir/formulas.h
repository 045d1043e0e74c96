// Elementwise math written once (DESIGN.md §3, "one definition per op"): every activation, every
// float unary and binary op, the comparisons, the Bool ops, where, mask_fill and the casts
// between a float and Bool are formulas over a small set of primitives, and each target
// implements the primitives once. A Bool value is a target's Mask. The targets:
//   - ndarray's reference loop (ir/scalar_math.h): a value is one float;
//   - flex's Highway loops (backends/flex/simd_math-inl.h): a value is a vector;
//   - the CUDA C emitter (codegen/cuda_c.h): a value is a variable of the kernel's source text;
//   - the libtorch backend (backends/libtorch/elementwise.cpp): a value is an at::Tensor.
// A formula is a function template over the target M. A composite (GELU, mish, softplus) is
// written here and nowhere else; a target that computes a primitive as a composite of others (the
// Highway target's erfc) takes that composite from here too.
//
// The primitives a target M provides, each a const member function:
//   using Value, Mask               an element (or a vector, or a source variable) and a predicate
//   constant(double c)              c in the target's float type (rounded once, to nearest)
//   lowest()                        the target type's lowest finite value
//   add sub mul div (a, b)          IEEE arithmetic
//   mul_add(a, b, c)                a * b + c, rounded once
//   min(a, b), max(a, b)            b < a ? b : a and a < b ? b : a: a NaN in a propagates (the
//                                   formulas clamp their variable, a, by a constant, b)
//   neg abs sqrt floor ceil         IEEE; round: half to even
//   frexp_fraction(x), frexp_exponent(x)   C's frexp: x = fraction 2^exponent, the fraction in
//                                   [1/2, 1), the exponent an integer-valued Value; used by the
//                                   normal of random_formulas-inl.h alone, so implemented by its
//                                   targets alone (ScalarMath, flex's HwyMath, CudaC), for
//                                   finite nonzero x (HwyMath: normal x)
//   exp expm1 log log1p sin cos tan tanh erf erfc (x)   each within a few ulp
//   pow(a, b), fmod(a, b)           C's powf/pow and fmod
//   lt le gt ge eq (a, b) -> Mask   C++'s comparisons: false where either is NaN
//   ne(a, b) -> Mask                C++'s !=: true where either is NaN
//   is_nan(x) -> Mask
//   mask_and mask_or mask_xor (Mask a, Mask b), mask_not(Mask a) -> Mask
//   select(Mask m, a, b)            a where m holds, else b; a and b may be masks (where and
//                                   mask_fill of Bool values), the result then a mask
// The formulas themselves are in formulas-inl.h, which this header includes into ember::formula: a
// SIMD target whose code is compiled once per instruction set includes it again into each set's
// namespace, so that the formulas are compiled for that set too (simd_math-inl.h).
//
// A SIMD target may hand lanes outside a primitive's range (NaN, infinities, exp's overflow) to
// the reference instead of computing them; every other target computes every input, so the
// formulas are written to give IEEE's special values (NaN in, NaN out) through the
// primitives alone.
#pragma once

#include <bitset>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <numbers>
#include <utility>

#include "ember/error.h"
#include "ir/activation_constants.h"
#include "ir/ops.h"

namespace ember::formula {
#include "ir/formulas-inl.h"

/// Every primitive of the list above, by name: the one list the usage probe below follows.
/// (clang-format is off for it: its layout of this list changed from one run to the next.)
// clang-format off
#define EMBER_FORMULA_PRIMITIVES(X)                                                            \
  X(constant) X(lowest)                                                                        \
  X(add) X(sub) X(mul) X(div) X(mul_add) X(min) X(max) X(pow) X(fmod)                          \
  X(neg) X(abs) X(sqrt) X(floor) X(ceil) X(round) X(frexp_fraction) X(frexp_exponent)          \
  X(exp) X(expm1) X(log) X(log1p) X(sin) X(cos) X(tan) X(tanh) X(erf) X(erfc)                  \
  X(lt) X(le) X(gt) X(ge) X(eq) X(ne) X(is_nan)                                                \
  X(mask_and) X(mask_or) X(mask_xor) X(mask_not) X(select)
// clang-format on

enum class Primitive : uint8_t {
#define EMBER_PRIMITIVE_ENUMERATOR(name) name,
  EMBER_FORMULA_PRIMITIVES(EMBER_PRIMITIVE_ENUMERATOR)
#undef EMBER_PRIMITIVE_ENUMERATOR
      kCount
};
/// A set of primitives: what a formula uses, or what a target implements.
using Primitives = std::bitset<static_cast<std::size_t>(Primitive::kCount)>;

/// primitives({Primitive::exp, Primitive::log}).
inline Primitives primitives(std::initializer_list<Primitive> list) {
  Primitives set;
  for (const Primitive p : list)
    set.set(static_cast<std::size_t>(p));
  return set;
}

/// A target that computes nothing and records which primitives a formula calls: a target lacking
/// some primitive (a GPU language without erfc, the x86 compiler without sin) asks it which ops it
/// can run, and a target whose primitives flag lanes asks which ops may flag.
struct UsageProbe {
  struct Value {};
  using Mask = Value;
  mutable Primitives used;

#define EMBER_PRIMITIVE_PROBE(name)                      \
  template <class... Args>                               \
  Value name(const Args&... /*args*/) const {            \
    used.set(static_cast<std::size_t>(Primitive::name)); \
    return {};                                           \
  }
  EMBER_FORMULA_PRIMITIVES(EMBER_PRIMITIVE_PROBE)
#undef EMBER_PRIMITIVE_PROBE
};

/// The primitives unary op's formula uses: a float op's, IsNan's and IsInf's (float_predicate),
/// Not's (bool_not).
inline Primitives primitives_of(ir::UnaryOp op) {
  const UsageProbe probe;
  if (is_float_unary(op)) {
    unary(probe, op, UsageProbe::Value{});
  } else if (op == ir::UnaryOp::Not) {
    bool_not(probe, UsageProbe::Value{});
  } else {
    float_predicate(probe, op, UsageProbe::Value{});
  }
  return probe.used;
}
/// The primitives activation op's formula uses.
inline Primitives primitives_of(ir::ActivationOp op) {
  const UsageProbe probe;
  activation(probe, op, UsageProbe::Value{}, [] { return UsageProbe::Value{}; });
  return probe.used;
}
/// The primitives float binary op's formula uses (op is_float_binary).
inline Primitives primitives_of(ir::BinaryOp op) {
  const UsageProbe probe;
  binary(probe, op, UsageProbe::Value{}, UsageProbe::Value{});
  return probe.used;
}

}  // namespace ember::formula
