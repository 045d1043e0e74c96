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

#include <cstdint>
#include <string>
#include <string_view>

#include "codegen/kernel_scalars.h"
#include "codegen/statements.h"
#include "ember/dtype.h"
#include "ir/ops.h"

namespace ember::codegen {

/// The CUDA C target of the formulas (ir/formulas.h), computing in f32 or f64, or in an integer
/// dtype. Values and masks are the names of const variables (float or double, the integer's C
/// type, and bool) of the statements it writes; a Bool tensor's elements are masks. Its
/// primitives are const, as the formulas take a const target; they append to the statements the
/// target holds, which on() shares with a target of another compute type (a program mixing an
/// integer dtype with a float one, or a comparison of an integer with a double scalar).
///
/// On an integer dtype the primitives are ndarray's integer arithmetic (arithmetic.h, and
/// unary.cpp's IntegerMath), so that formulas.h's formulas give ndarray's integer results:
/// add sub mul neg wrap (computed in the unsigned type of at least 32 bits, then converted back);
/// div truncates toward zero and MIN / -1 wraps to MIN; fmod is C's truncated % (MIN % -1 is 0),
/// which formula::remainder moves into the divisor's sign; pow is the wrapping power by repeated
/// squaring (a negative exponent gives 1: the callers admit none); abs is x < 0 ? -x : x
/// (wrapping); is_nan is false; min, max, the comparisons and select are C's. A zero divisor is
/// not checked: the emitter writes no division by a tensor on an integer dtype (cuda_ops.h).
/// The float-only primitives (sqrt, exp, ..., lowest, mul_add) throw InvalidArgument.
class CudaC {
 public:
  using Value = std::string;  ///< a variable of the compute type
  using Mask = std::string;   ///< a bool variable

  /// A target computing in compute (F32, F64 or an integer dtype: InvalidArgument for F16, BF16
  /// and Bool), whose statements are indented by indent.
  explicit CudaC(DType compute, std::string indent = "    ");

  /// A target computing in compute (as the constructor takes it) that appends to this target's
  /// statements, with the same variable numbering.
  CudaC on(DType compute) const;
  /// The dtype this target computes in.
  DType compute() const { return compute_; }
  /// The C type of the compute type's variables ("float", "double", "int", "unsigned char", ...).
  std::string_view type() const;

  /// The statements written so far, one a line.
  const std::string& statements() const { return statements_.text(); }
  /// A new variable of the compute type holding the C expression (a load, a kernel parameter).
  Value define(std::string_view expression) const;
  /// A new bool variable holding the C expression (a Bool element's load, "x[i] != 0").
  Mask define_mask(std::string_view expression) const;
  /// Whether name is a bool variable of this target's (define_mask's, a comparison's, ...).
  bool is_mask(const std::string& name) const { return statements_.is_mask(name); }

  /// The C literal of c rounded once to the compute type, written exactly (a hexadecimal float,
  /// "0x1.6a09e6p-1f"; infinities and NaN from their bits); on an integer dtype, c converted
  /// through int64 as ndarray's IntegerMath converts it ("(int)-1LL").
  std::string literal(double c) const;
  /// The C literal of the integer v converted to the compute type, an integer dtype.
  std::string integer_literal(int64_t v) const;
  /// The C expression of x converted to the compute type: "(int)x".
  std::string cast(const std::string& x) const;
  /// The C expression of the float holding x, an integer of from (32 or 64 bits), rounded to odd
  /// (ember_odd_float), which f16 and bf16 then round once (op_formulas.h).
  std::string rounded_to_odd(const std::string& x, DType from) const;
  /// A new variable holding the element of dtype that the C lvalue element holds (cuda::load).
  std::string load(DType dtype, const std::string& element) const;
  /// The C expression of value as an element of dtype (cuda::store).
  std::string store(DType dtype, const std::string& value) const;
  /// A new variable holding literal(c).
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
  /// frexpf's fraction, and its exponent as a value of the compute type (a float compute type).
  Value frexp_fraction(const Value& x) const;
  Value frexp_exponent(const Value& x) const;
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
  Mask ne(const Value& a, const Value& b) const;
  Mask is_nan(const Value& x) const;
  Mask mask_and(const Mask& a, const Mask& b) const;
  Mask mask_or(const Mask& a, const Mask& b) const;
  Mask mask_xor(const Mask& a, const Mask& b) const;
  Mask mask_not(const Mask& a) const;
  /// a where m holds, else b: a value, or a mask when a and b are masks (where and mask_fill of
  /// Bool elements).
  Value select(const Mask& m, const Value& a, const Value& b) const;

 private:
  CudaC(DType compute, Statements statements);

  bool integer() const { return is_int(compute_); }
  /// The unsigned type an integer compute type wraps in ("unsigned int", "unsigned long long").
  std::string_view wrap_type() const;
  /// "(T)((W)a op (W)b)": a op b wrapping, for an integer compute type.
  Value wrapping(const Value& a, std::string_view op, const Value& b) const;
  /// Throws InvalidArgument: primitive has no integer form.
  [[noreturn]] void float_only(std::string_view primitive) const;
  /// The math library's function of that name for the compute type ("expf", or "exp" for f64).
  std::string call(std::string_view function, const Value& x) const;
  std::string call(std::string_view function, const Value& a, const Value& b) const;
  /// A new variable holding result, an expression of frexp's fraction f and exponent e of x.
  Value frexp(const Value& x, const std::string& result) const;

  DType compute_;
  bool f64_;
  Statements statements_;
};

/// Whether elementwise_kernel writes a kernel for op on dtype, the dtype of op's (first) tensor
/// operand: x, a, or Where's a: writes (emitted_ops.h) on float and Bool operands and results.
/// Written from the formulas, on F64, F32, F16 and BF16 (the float
/// dtypes) and Bool (the integer dtypes' ops are written by program_kernel, cuda_program.h, which
/// the backend runs every elementwise op through):
///   ir::Unary         a float op (formula::unary) or IsNan, IsInf (formula::float_predicate) on
///                     a float dtype; Not (formula::bool_not) on Bool
///   ir::Binary        a float op (formula::binary) on a float dtype; And, Or, Xor
///                     (formula::logical) on Bool
///   ir::BinaryScalar  the same ops, with the scalar on either side (scalar_lhs)
///   ir::Compare, ir::CompareScalar   every comparison (formula::compare) on a float dtype or Bool
///   ir::Where, ir::MaskFill          a float dtype or Bool (formula::where, formula::mask_fill)
///   ir::Cast          from a float dtype to Bool (formula::to_bool) or from Bool to a float
///                     dtype (formula::from_bool)
///   ir::Activation    every one (formula::activation), on a float dtype
bool has_elementwise_kernel(const ir::Op& op, DType dtype);

/// The CUDA C source of a kernel computing op elementwise on dtype (as has_elementwise_kernel
/// reads it), named kernel_name (a C identifier): one thread an element in a grid-stride loop over
/// [0, n), any grid and block. Every tensor argument holds n elements, contiguous: the kernel does
/// not broadcast (program_kernel, cuda_program.h, does). The element types:
///   T    the storage type of dtype: double (f64), float (f32), unsigned short (the bits of f16
///        and bf16), unsigned char (Bool: one byte, 0 or 1; any nonzero byte reads as true, and
///        the kernel writes 0 or 1);
///   Out  the storage type of the result's dtype (ir::infer's): Bool for Compare, CompareScalar,
///        IsNan, IsInf, Cast to Bool; Cast's dtype for a Cast; T otherwise;
///   C    the scalar parameter's type: double when dtype is F64, float otherwise.
/// The signatures, every one extern "C" __global__ void kernel_name(...):
///   ir::Unary, ir::Activation, ir::BinaryScalar, ir::CompareScalar, ir::Cast:
///       (const T* x, Out* out, long long n, C parameter)
///   ir::Binary, ir::Compare:
///       (const T* a, const T* b, Out* out, long long n)
///   ir::Where:
///       (const unsigned char* condition, const T* a, const T* b, T* out, long long n)
///   ir::MaskFill:
///       (const T* x, const unsigned char* mask, T* out, long long n, C value)
/// parameter and value are kernel_parameter(op, dtype) rounded to C (exact: it is rounded to
/// dtype already): the activation's parameter, the scalar of BinaryScalar, CompareScalar and
/// MaskFill; the other one-input kernels take it unused, so that every one-input kernel is
/// launched alike. Elements are computed in double when dtype or a Cast's dtype is F64, in float
/// otherwise: f16 and bf16 are read into float and rounded back to nearest, ties to even, as
/// ember's conversions do. out may be an input of its element type. The sources of kernels of
/// distinct names may be concatenated into one program. Throws InvalidArgument, naming the op and
/// the dtype, when !has_elementwise_kernel(op, dtype), and when kernel_name is not an identifier.
std::string elementwise_kernel(const ir::Op& op, DType dtype, std::string_view kernel_name);

}  // namespace ember::codegen
