// The CUDA C emitter: the formulas of ir/formulas.h written out as CUDA C source, for NVRTC to
// compile at run time (docs/codegen.md). A target of the formulas whose values are the names of
// variables of the kernel's source: each primitive appends one statement ("const float v7 =
// expf(v6);") and returns the new variable's name, so that evaluating a formula over this target
// writes the formula out, primitive by primitive, in the order every other target computes it.
//
// The source is self-contained (no #include): it compiles with NVRTC's defaults and no include
// path, e.g. nvrtcCompileProgram with {"--gpu-architecture=compute_90", "-default-device"}. It
// holds its results to IEEE's rounding whatever --fmad, --prec-div and --prec-sqrt say: add, sub,
// mul, div and sqrt are the correctly rounded intrinsics (__fadd_rn, ...), which the compiler
// never fuses into a multiply-add, so that only mul_add rounds once. Do not compile it with
// --use_fast_math, which replaces the math library's functions by approximations and flushes
// subnormals to zero.
#pragma once

#include <string>
#include <string_view>

#include "ember/dtype.h"
#include "ir/ops.h"

namespace ember::codegen {

/// The CUDA C target of the formulas (ir/formulas.h), computing in f32 or f64. Values and masks
/// are the names of const variables (float or double, and bool) of the statements it writes.
/// Its primitives are const, as the formulas take a const target; they append to the statements
/// the target holds.
class CudaC {
 public:
  using Value = std::string;  ///< a float (double) variable
  using Mask = std::string;   ///< a bool variable

  /// A target computing in compute (F32 or F64: InvalidArgument for any other dtype), whose
  /// statements are indented by indent.
  explicit CudaC(DType compute, std::string indent = "    ");

  /// The statements written so far, one a line.
  const std::string& statements() const { return statements_; }
  /// A new variable of the compute type holding the C expression (a load, a kernel parameter).
  Value define(std::string_view expression) const;

  /// c rounded once to the compute type, written exactly (a hexadecimal float).
  Value constant(double c) const;
  Value lowest() const;

  Value add(const Value& a, const Value& b) const;
  Value sub(const Value& a, const Value& b) const;
  Value mul(const Value& a, const Value& b) const;
  Value div(const Value& a, const Value& b) const;
  Value mul_add(const Value& a, const Value& b, const Value& c) const;
  /// b < a ? b : a and a < b ? b : a, as formulas.h defines them (not fminf and fmaxf, which
  /// drop a NaN).
  Value min(const Value& a, const Value& b) const;
  Value max(const Value& a, const Value& b) const;
  Value pow(const Value& a, const Value& b) const;
  Value fmod(const Value& a, const Value& b) const;

  Value neg(const Value& x) const;
  Value abs(const Value& x) const;
  Value sqrt(const Value& x) const;
  Value floor(const Value& x) const;
  Value ceil(const Value& x) const;
  Value round(const Value& x) const;  ///< rintf: half to even
  Value exp(const Value& x) const;
  Value expm1(const Value& x) const;
  Value log(const Value& x) const;
  Value log1p(const Value& x) const;
  Value sin(const Value& x) const;
  Value cos(const Value& x) const;
  Value tan(const Value& x) const;
  Value tanh(const Value& x) const;
  Value erf(const Value& x) const;
  Value erfc(const Value& x) const;

  Mask lt(const Value& a, const Value& b) const;
  Mask le(const Value& a, const Value& b) const;
  Mask gt(const Value& a, const Value& b) const;
  Mask ge(const Value& a, const Value& b) const;
  Mask eq(const Value& a, const Value& b) const;
  Mask is_nan(const Value& x) const;
  Value select(const Mask& m, const Value& a, const Value& b) const;

 private:
  /// Appends "const <type> v<k> = <expression>;" and returns "v<k>".
  std::string append(std::string_view type, std::string_view expression) const;
  /// The math library's function of that name for the compute type ("expf", or "exp" for f64).
  std::string call(std::string_view function, const Value& x) const;
  std::string call(std::string_view function, const Value& a, const Value& b) const;

  bool f64_;
  std::string indent_;
  mutable std::string statements_;
  mutable int variables_ = 0;
};

/// Whether elementwise_kernel writes a kernel for op on dtype: op is a float ir::Unary
/// (formula::is_float_unary), a float ir::Binary (formula::is_float_binary) or an ir::Activation,
/// and dtype is F64, F32, F16 or BF16.
bool has_elementwise_kernel(const ir::Op& op, DType dtype);

/// The CUDA C source of a kernel computing op elementwise on dtype, named kernel_name (a C
/// identifier): one thread an element in a grid-stride loop over [0, n), any grid and block. T is
/// the dtype's storage type (double, float, or unsigned short for the bits of f16 and bf16).
///   ir::Unary, ir::Activation:  extern "C" __global__ void kernel_name(const T* x, T* out,
///                                   long long n, C parameter)
///   ir::Binary:                 extern "C" __global__ void kernel_name(const T* a, const T* b,
///                                   T* out, long long n)
/// Elements are computed in C, double for f64 and float for the others (f16 and bf16 are read
/// into float and rounded back to nearest, ties to even, as ember's conversions do). parameter
/// is the activation's parameter (ir::parameter_of, rounded to C), unused by the ops without one;
/// unary ops take it too, so that every one-input kernel is launched alike. out may be x (or a or
/// b). The sources of kernels of distinct names may be concatenated into one program. Throws
/// InvalidArgument, naming the op and the dtype, when !has_elementwise_kernel(op, dtype), and when
/// kernel_name is not an identifier.
std::string elementwise_kernel(const ir::Op& op, DType dtype, std::string_view kernel_name);

}  // namespace ember::codegen
