// The GLSL emitter's target: the formulas of ir/formulas.h written out as statements of a GLSL
// 4.50 compute shader, for a Vulkan backend to compile to SPIR-V at run time (docs/codegen.md).
// Like CudaC (cuda_c.h), a value is the name of a variable of the shader's source and each
// primitive appends one statement; which formula each op takes, and the conversions between
// dtypes, are op_formulas.h's, shared with every emitter. Only the spelling is here.
//
// Float values are declared `precise`, so that the compiler contracts no multiply and add into
// one: only mul_add (fma) rounds once, as on the other targets. GLSL has no hexadecimal float
// literals: constants are written from their bits (uintBitsToFloat, packDouble2x32), exact.
// Vulkan's precision rules allow a few ulp for division, sqrt and the transcendental functions,
// and GLSL has erf, erfc, expm1, log1p and a usable pow on no type, and no transcendental function
// on doubles (erfc on f32 is formulas.h's rational approximation): glsl_primitives says which
// primitives the target writes on a compute type, and an op whose formula needs another one is not
// written (the backend runs it on the host).
//
// Integers compute in GLSL's 32-bit int and uint (i8, i16, i32 and u8, u16, u32, holding the
// dtype's value, sign- or zero-extended) or int64_t and uint64_t, with ndarray's semantics
// (arithmetic.h): add sub mul neg wrap in the dtype (bitfieldExtract to 8 or 16 bits); div
// truncates and MIN / -1 wraps to MIN; fmod is the truncated remainder (MIN % -1 is 0); pow is
// the wrapping power by squaring (ember_ipow).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "codegen/shader_target.h"
#include "codegen/statements.h"
#include "ember/dtype.h"
#include "ir/formulas.h"

namespace ember::codegen {

/// What a Vulkan device lets a shader use, which decides which programs the emitter writes.
struct GlslFeatures {
  bool float64 = false;    ///< double (shaderFloat64)
  bool int64 = false;      ///< int64_t, uint64_t (shaderInt64)
  bool storage8 = false;   ///< 8-bit elements in buffers: Bool, i8, u8
  bool storage16 = false;  ///< 16-bit elements in buffers: f16, i16, u16
};

class Glsl : public ShaderTarget<Glsl> {
 public:
  using Value = std::string;  ///< a variable of the compute type
  using Mask = std::string;   ///< a bool variable

  /// A target computing in compute (F32, F64 or an integer dtype), whose statements are
  /// indented by indent. InvalidArgument for F16, BF16 and Bool.
  explicit Glsl(DType compute, std::string indent = "    ");
  /// A target computing in compute appending to this target's statements.
  Glsl on(DType compute) const;
  DType compute() const { return compute_; }
  /// The GLSL type of the compute type's variables: float, double, int, uint, int64_t, uint64_t.
  std::string_view type() const;

  const std::string& statements() const { return statements_.text(); }
  Value define(std::string_view expression) const;
  Mask define_mask(std::string_view expression) const;
  bool is_mask(const std::string& name) const { return statements_.is_mask(name); }

  /// The exact GLSL literal of c rounded once to the compute type; on an integer dtype, c
  /// converted through int64 as ndarray converts it.
  std::string literal(double c) const;
  /// The literal of the integer v as an element of the compute type holds it (wrapped).
  std::string integer_literal(int64_t v) const;
  /// The float of x, an integer of from: float(x). Note: not rounded to odd as CUDA C does, as
  /// this target writes f16 (never bf16) results only, and every integer of 2^24 or more is
  /// infinite in f16 whatever the float's last bit.
  std::string rounded_to_odd(const std::string& x, DType from) const;
  /// A new variable holding the element of dtype that the buffer element element holds.
  std::string load(DType dtype, const std::string& element) const;
  /// The expression writing value as an element of dtype's storage.
  std::string store(DType dtype, const std::string& value) const;

  /// The expression "condition ? then : otherwise" (lowering::conditional).
  std::string conditional(const std::string& condition, const std::string& then,
                          const std::string& otherwise) const;

  Value lowest() const;
  Value pow(const Value& a, const Value& b) const;
  Mask is_nan(const Value& x) const;

 private:
  friend class ShaderTarget<Glsl>;
  Glsl(DType compute, Statements statements);

  bool integer() const { return is_int(compute_); }
  /// expression wrapped to the compute dtype's width (8 or 16 bits); itself otherwise.
  std::string wrapped(const std::string& expression) const;
  /// Throws InvalidArgument: primitive is not written on this compute type.
  [[noreturn]] void unwritten(std::string_view primitive) const;
  /// x as an operand of a comparison (a mask as uint 0 or 1).
  std::string comparand(const Value& x) const;

  DType compute_;
  Statements statements_;
};

}  // namespace ember::codegen
