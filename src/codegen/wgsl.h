// The WGSL emitter's target: the formulas of ir/formulas.h written out as statements of a WGSL
// compute shader, for the wgpu backend to hand to wgpu-native (docs/codegen.md). Like Glsl
// (glsl.h), a value is the name of a `let` of the shader and each primitive appends one
// statement; which formula each op takes, and the conversions between dtypes, are
// op_formulas.h's, shared with every emitter. Only the spelling is here.
//
// WGSL has f32, i32, u32 and bool (f16 only with the shader-f16 feature, which this target does
// not need: f16 values compute in f32 and are rounded by the kernel's own ember_f16_bits). It has
// no double and no 64-bit integer, no ?: (select evaluates both sides; WGSL's integer division by
// zero yields the dividend instead of trapping, so no side can fault), no isnan (the bits are
// tested) and no overloading of user functions. Constants are written from their bits
// (bitcast<f32>), exact. The built-in functions are GLSL's: the target writes the primitives
// glsl_primitives has on F32, and an op whose formula needs another one is not written.
//
// Integers compute in i32 and u32 (i8, i16 and u8, u16 held sign- or zero-extended, wrapped
// with extractBits), with ndarray's semantics as the GLSL target has them (glsl.h). Elements of 1
// or 2 bytes (Bool, i8, u8, i16, u16, f16) live in u32 words: load takes the element's bits
// zero-extended in a u32, store gives them (the kernel shifts them into their word).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "codegen/shader_target.h"
#include "codegen/statements.h"
#include "ember/dtype.h"
#include "ir/formulas.h"

namespace ember::codegen {

class Wgsl : public ShaderTarget<Wgsl> {
 public:
  using Value = std::string;  ///< a let of the compute type
  using Mask = std::string;   ///< a bool let

  /// A target computing in compute (F32 or an integer dtype of up to 32 bits), whose statements
  /// are indented by indent. InvalidArgument for the others.
  explicit Wgsl(DType compute, std::string indent = "    ");
  /// A target computing in compute appending to this target's statements.
  Wgsl on(DType compute) const;
  DType compute() const { return compute_; }
  /// The WGSL type of the compute type's values: f32, i32, u32.
  std::string_view type() const;

  const std::string& statements() const { return statements_.text(); }
  Value define(std::string_view expression) const;
  Mask define_mask(std::string_view expression) const;
  bool is_mask(const std::string& name) const { return statements_.is_mask(name); }

  /// The exact WGSL literal of c rounded once to the compute type; on an integer dtype, c
  /// converted through int64 as ndarray converts it.
  std::string literal(double c) const;
  /// The literal of the integer v as an element of the compute type holds it (wrapped).
  std::string integer_literal(int64_t v) const;
  /// f32(x): as Glsl::rounded_to_odd, exact enough for the f16 results this target writes.
  std::string rounded_to_odd(const std::string& x, DType from) const;
  /// A new let holding the element of dtype whose storage element is element (a u32 of its bits,
  /// zero-extended, for the dtypes of 1 or 2 bytes).
  std::string load(DType dtype, const std::string& element) const;
  /// The expression of value as an element of dtype's storage (a u32 of its bits for the dtypes
  /// of 1 or 2 bytes, the high bits zero).
  std::string store(DType dtype, const std::string& value) const;

  /// The expression of "condition ? then : otherwise": select(otherwise, then, condition), both
  /// sides evaluated (lowering::conditional).
  std::string conditional(const std::string& condition, const std::string& then,
                          const std::string& otherwise) const;

  Value lowest() const;
  Value pow(const Value& a, const Value& b) const;
  Mask is_nan(const Value& x) const;

 private:
  friend class ShaderTarget<Wgsl>;
  Wgsl(DType compute, Statements statements);

  bool integer() const { return is_int(compute_); }
  std::string wrapped(const std::string& expression) const;
  [[noreturn]] void unwritten(std::string_view primitive) const;
  std::string comparand(const Value& x) const;

  DType compute_;
  Statements statements_;
};

}  // namespace ember::codegen
