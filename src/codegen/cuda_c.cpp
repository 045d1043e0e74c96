// The CUDA C emitter (cuda_c.h): the primitives of formulas.h as CUDA C statements, and the
// elementwise kernels built from them. Every formula comes from formulas.h (through
// cuda_ops.cpp); this file only says how each primitive is spelled in CUDA C and how a kernel
// wraps one op.
#include "codegen/cuda_c.h"

#include <charconv>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "codegen/cuda_ops.h"
#include "codegen/emitted_ops.h"
#include "codegen/op_formulas.h"
#include "ember/error.h"
#include "ember/float16.h"
#include "ember/tensor_data.h"
#include "ir/ops.h"
#include "ir/program.h"

namespace ember::codegen {
namespace {

/// The hexadecimal C literal of v, exact ("0x1.6a09e6p-1f", "-0x0p+0", "0x1p-149f"): a float
/// literal when v is a float, a double one when it is a double. Written from v's double, which
/// holds a float exactly and normalizes its subnormals. Infinities and NaN, which have no literal,
/// are built from their bits.
template <typename F>
std::string hex_literal(F v) {
  constexpr bool kFloat = std::is_same_v<F, float>;
  if (std::isnan(v))
    return kFloat ? "__int_as_float(0x7fc00000)" : "__longlong_as_double(0x7ff8000000000000LL)";
  if (std::isinf(v)) {
    const std::string bits = kFloat ? (v > 0 ? "0x7f800000" : "0xff800000")
                                    : (v > 0 ? "0x7ff0000000000000LL" : "0xfff0000000000000LL");
    return (kFloat ? "__int_as_float(" : "__longlong_as_double(") + bits + ")";
  }
  char digits[64];
  const auto printed = std::to_chars(digits, digits + sizeof digits,
                                     std::abs(static_cast<double>(v)), std::chars_format::hex);
  std::string literal = std::signbit(v) ? "-0x" : "0x";
  literal.append(digits, printed.ptr);
  if (kFloat) literal += 'f';
  return literal;
}

}  // namespace

// ---- the target -------------------------------------------------------------------------------

CudaC::CudaC(DType compute, std::string indent) : CudaC(compute, Statements(std::move(indent))) {}

CudaC::CudaC(DType compute, Statements statements)
    : compute_(compute), f64_(compute == DType::F64), statements_(std::move(statements)) {
  if (compute != DType::F64 && compute != DType::F32 && !is_int(compute))
    throw InvalidArgument("[codegen] CUDA C computes in f32, f64 or an integer dtype, not " +
                          std::string(dtype_name(compute)));
}

CudaC CudaC::on(DType compute) const {
  return CudaC(compute, statements_);
}

std::string_view CudaC::type() const {
  if (integer()) return cuda::storage_type(compute_);
  return f64_ ? "double" : "float";
}

std::string_view CudaC::wrap_type() const {
  return dtype_size(compute_) == 8 ? "unsigned long long" : "unsigned int";
}

void CudaC::float_only(std::string_view primitive) const {
  throw InvalidArgument("[codegen] the primitive " + std::string(primitive) +
                        " has no integer form (CUDA C target on " +
                        std::string(dtype_name(compute_)) + ")");
}

std::string CudaC::call(std::string_view function, const Value& x) const {
  if (integer()) float_only(function);
  return define(std::string(function) + (f64_ ? "" : "f") + "(" + x + ")");
}

std::string CudaC::call(std::string_view function, const Value& a, const Value& b) const {
  if (integer()) float_only(function);
  return define(std::string(function) + (f64_ ? "" : "f") + "(" + a + ", " + b + ")");
}

// frexp writes the exponent through a pointer: a lambda called in place keeps it one expression.
CudaC::Value CudaC::frexp(const Value& x, const std::string& result) const {
  if (integer()) float_only("frexp");
  const std::string t(type());
  return define("[](" + t + " v) { int e; const " + t + " f = frexp" + (f64_ ? "" : "f") +
                "(v, &e); return " + result + "; }(" + x + ")");
}

CudaC::Value CudaC::define(std::string_view expression) const {
  return statements_.append("const " + std::string(type()), expression);
}

CudaC::Mask CudaC::define_mask(std::string_view expression) const {
  return statements_.append_mask("const bool", expression);
}

std::string CudaC::integer_literal(int64_t v) const {
  // -2^63 has no literal: it is written as an expression.
  const std::string digits = v == std::numeric_limits<int64_t>::min()
                                 ? "(-9223372036854775807LL - 1)"
                                 : "(" + std::to_string(v) + "LL)";
  return "((" + std::string(type()) + ")" + digits + ")";
}

std::string CudaC::literal(double c) const {
  if (integer()) {
    // Through int64, as ndarray's IntegerMath converts its constants (-1 wraps in an unsigned
    // type); the formulas' integer constants are small.
    if (!(std::abs(c) < 0x1p63))
      throw InvalidArgument("[codegen] the constant " + std::to_string(c) + " is no " +
                            std::string(dtype_name(compute_)));
    return integer_literal(static_cast<int64_t>(c));
  }
  return f64_ ? hex_literal(c) : hex_literal(static_cast<float>(c));
}

std::string CudaC::cast(const std::string& x) const {
  return "(" + std::string(type()) + ")" + x;
}

std::string CudaC::rounded_to_odd(const std::string& x, DType from) const {
  return std::string("ember_odd_float((") +
         (is_signed_int(from) ? "long long" : "unsigned long long") + ")" + x + ")";
}

std::string CudaC::load(DType dtype, const std::string& element) const {
  return cuda::load(*this, dtype, element);
}

std::string CudaC::store(DType dtype, const std::string& value) const {
  return cuda::store(dtype, value);
}

CudaC::Value CudaC::constant(double c) const {
  return define(literal(c));
}

CudaC::Value CudaC::lowest() const {
  if (integer()) float_only("lowest");
  return define(f64_ ? hex_literal(std::numeric_limits<double>::lowest())
                     : hex_literal(std::numeric_limits<float>::lowest()));
}

CudaC::Value CudaC::wrapping(const Value& a, std::string_view op, const Value& b) const {
  const std::string w(wrap_type());
  return define("(" + std::string(type()) + ")((" + w + ")" + a + " " + std::string(op) + " (" + w +
                ")" + b + ")");
}

// The correctly rounded intrinsics: __fadd_rn and the others are never contracted into an FMA.
CudaC::Value CudaC::add(const Value& a, const Value& b) const {
  if (integer()) return wrapping(a, "+", b);
  return define((f64_ ? "__dadd_rn(" : "__fadd_rn(") + a + ", " + b + ")");
}
CudaC::Value CudaC::sub(const Value& a, const Value& b) const {
  if (integer()) return wrapping(a, "-", b);
  return define((f64_ ? "__dsub_rn(" : "__fsub_rn(") + a + ", " + b + ")");
}
CudaC::Value CudaC::mul(const Value& a, const Value& b) const {
  if (integer()) return wrapping(a, "*", b);
  return define((f64_ ? "__dmul_rn(" : "__fmul_rn(") + a + ", " + b + ")");
}
CudaC::Value CudaC::div(const Value& a, const Value& b) const {
  if (integer()) {
    const std::string t(type());
    // Truncated; MIN / -1 wraps to MIN (-a, wrapping) instead of overflowing.
    if (is_signed_int(compute_))
      return define(b + " == " + integer_literal(-1) + " ? (" + t + ")((" +
                    std::string(wrap_type()) + ")0 - (" + std::string(wrap_type()) + ")" + a +
                    ") : (" + t + ")(" + a + " / " + b + ")");
    return define("(" + t + ")(" + a + " / " + b + ")");
  }
  return define((f64_ ? "__ddiv_rn(" : "__fdiv_rn(") + a + ", " + b + ")");
}
CudaC::Value CudaC::mul_add(const Value& a, const Value& b, const Value& c) const {
  if (integer()) float_only("mul_add");
  return define((f64_ ? "fma(" : "fmaf(") + a + ", " + b + ", " + c + ")");
}
CudaC::Value CudaC::min(const Value& a, const Value& b) const {
  return define(b + " < " + a + " ? " + b + " : " + a);
}
CudaC::Value CudaC::max(const Value& a, const Value& b) const {
  return define(a + " < " + b + " ? " + b + " : " + a);
}
CudaC::Value CudaC::pow(const Value& a, const Value& b) const {
  // The wrapping power by repeated squaring (cuda_ops.cpp's integer helpers).
  if (integer())
    return define("ember_ipow<" + std::string(type()) + ", " + std::string(wrap_type()) + ">(" + a +
                  ", " + b + ")");
  return call("pow", a, b);
}
CudaC::Value CudaC::fmod(const Value& a, const Value& b) const {
  if (integer()) {
    // C's truncated remainder; MIN % -1 (which overflows) is 0.
    const std::string t(type());
    if (is_signed_int(compute_))
      return define(b + " == " + integer_literal(-1) + " ? (" + t + ")0 : (" + t + ")(" + a +
                    " % " + b + ")");
    return define("(" + t + ")(" + a + " % " + b + ")");
  }
  return call("fmod", a, b);
}

CudaC::Value CudaC::neg(const Value& x) const {
  if (integer()) return wrapping(integer_literal(0), "-", x);
  return define("-" + x);
}
CudaC::Value CudaC::abs(const Value& x) const {
  if (integer()) {
    // ndarray's IntegerMath: x < 0 ? -x : x, wrapping (abs(MIN) is MIN); an unsigned x is itself.
    if (!is_signed_int(compute_)) return x;
    const std::string w(wrap_type());
    return define(x + " < 0 ? (" + std::string(type()) + ")((" + w + ")0 - (" + w + ")" + x +
                  ") : " + x);
  }
  return call("fabs", x);
}
CudaC::Value CudaC::sqrt(const Value& x) const {
  if (integer()) float_only("sqrt");
  return define((f64_ ? "__dsqrt_rn(" : "__fsqrt_rn(") + x + ")");
}
CudaC::Value CudaC::floor(const Value& x) const {
  return call("floor", x);
}
CudaC::Value CudaC::ceil(const Value& x) const {
  return call("ceil", x);
}
CudaC::Value CudaC::round(const Value& x) const {
  return call("rint", x);
}
CudaC::Value CudaC::frexp_fraction(const Value& x) const {
  return frexp(x, "f");
}
CudaC::Value CudaC::frexp_exponent(const Value& x) const {
  return frexp(x, "(" + std::string(type()) + ")e");
}
CudaC::Value CudaC::exp(const Value& x) const {
  return call("exp", x);
}
CudaC::Value CudaC::expm1(const Value& x) const {
  return call("expm1", x);
}
CudaC::Value CudaC::log(const Value& x) const {
  return call("log", x);
}
CudaC::Value CudaC::log1p(const Value& x) const {
  return call("log1p", x);
}
CudaC::Value CudaC::sin(const Value& x) const {
  return call("sin", x);
}
CudaC::Value CudaC::cos(const Value& x) const {
  return call("cos", x);
}
CudaC::Value CudaC::tan(const Value& x) const {
  return call("tan", x);
}
CudaC::Value CudaC::tanh(const Value& x) const {
  return call("tanh", x);
}
CudaC::Value CudaC::erf(const Value& x) const {
  return call("erf", x);
}
CudaC::Value CudaC::erfc(const Value& x) const {
  return call("erfc", x);
}

CudaC::Mask CudaC::lt(const Value& a, const Value& b) const {
  return define_mask(a + " < " + b);
}
CudaC::Mask CudaC::le(const Value& a, const Value& b) const {
  return define_mask(a + " <= " + b);
}
CudaC::Mask CudaC::gt(const Value& a, const Value& b) const {
  return define_mask(a + " > " + b);
}
CudaC::Mask CudaC::ge(const Value& a, const Value& b) const {
  return define_mask(a + " >= " + b);
}
CudaC::Mask CudaC::eq(const Value& a, const Value& b) const {
  return define_mask(a + " == " + b);
}
CudaC::Mask CudaC::ne(const Value& a, const Value& b) const {
  return define_mask(a + " != " + b);
}
CudaC::Mask CudaC::is_nan(const Value& x) const {
  if (integer()) return define_mask("false");
  return define_mask("isnan(" + x + ")");
}
CudaC::Mask CudaC::mask_and(const Mask& a, const Mask& b) const {
  return define_mask(a + " && " + b);
}
CudaC::Mask CudaC::mask_or(const Mask& a, const Mask& b) const {
  return define_mask(a + " || " + b);
}
CudaC::Mask CudaC::mask_xor(const Mask& a, const Mask& b) const {
  return define_mask(a + " != " + b);
}
CudaC::Mask CudaC::mask_not(const Mask& a) const {
  return define_mask("!" + a);
}
CudaC::Value CudaC::select(const Mask& m, const Value& a, const Value& b) const {
  const std::string expression = m + " ? " + a + " : " + b;
  return is_mask(a) && is_mask(b) ? define_mask(expression) : define(expression);
}

// ---- kernels ----------------------------------------------------------------------------------

namespace {

bool float_or_bool(DType dtype) {
  return is_float(dtype) || dtype == DType::Bool;
}

/// One tensor argument of a kernel: its name and dtype.
struct Operand {
  std::string name;
  DType dtype;
};

}  // namespace

bool has_elementwise_kernel(const ir::Op& op, DType dtype) {
  if (!float_or_bool(dtype) || !writes(op, dtype)) return false;
  const auto* cast = std::get_if<ir::Cast>(&op);
  return cast == nullptr || float_or_bool(cast->dtype);
}

std::string elementwise_kernel(const ir::Op& op, DType dtype, std::string_view kernel_name) {
  const std::string op_name = ir::name(op);
  if (!has_elementwise_kernel(op, dtype))
    throw InvalidArgument(
        "[" + op_name + "] the CUDA C emitter has no kernel for this op on dtype " +
        std::string(dtype_name(dtype)) +
        " (it writes the float unary, binary and scalar ops, the activations and "
        "the comparisons on f64, f32, f16 and bf16; the Bool ops, comparisons, "
        "where and mask_fill on bool; casts between a float dtype and bool; the integer "
        "ops are written by program_kernel)");
  if (!is_identifier(kernel_name))
    throw InvalidArgument("[" + op_name + "] kernel name \"" + std::string(kernel_name) +
                          "\" is not a C identifier");

  const auto* cast = std::get_if<ir::Cast>(&op);
  const bool f64 = dtype == DType::F64 || (cast != nullptr && cast->dtype == DType::F64);
  const CudaC m(f64 ? DType::F64 : DType::F32, "    ");

  // The tensor arguments, in the signature's order; whether the kernel takes a scalar, by name.
  std::vector<Operand> inputs;
  std::string scalar = "parameter";
  if (std::holds_alternative<ir::Binary>(op) || std::holds_alternative<ir::Compare>(op)) {
    inputs = {{"a", dtype}, {"b", dtype}};
    scalar.clear();
  } else if (std::holds_alternative<ir::Where>(op)) {
    inputs = {{"condition", DType::Bool}, {"a", dtype}, {"b", dtype}};
    scalar.clear();
  } else if (std::holds_alternative<ir::MaskFill>(op)) {
    inputs = {{"x", dtype}, {"mask", DType::Bool}};
    scalar = "value";
  } else {
    inputs = {{"x", dtype}};
  }
  std::vector<ir::TensorMeta> metas;
  for (const Operand& input : inputs)
    metas.push_back({Shape{1}, input.dtype});
  const DType result_dtype = ir::infer(op, metas)[0].dtype;

  std::string parameters;
  std::string helpers;
  std::vector<std::string> args;
  const auto add_helpers = [&](DType d) {
    if (helpers.find(cuda::storage_helpers(d)) == std::string::npos)
      helpers += cuda::storage_helpers(d);
  };
  for (const Operand& input : inputs) {
    parameters +=
        "const " + std::string(cuda::storage_type(input.dtype)) + "* " + input.name + ", ";
    add_helpers(input.dtype);
    args.push_back(cuda::load(m, input.dtype, input.name + "[i]"));
  }
  add_helpers(result_dtype);
  parameters += std::string(cuda::storage_type(result_dtype)) + "* out, long long n";
  if (!scalar.empty())
    parameters += std::string(dtype == DType::F64 ? ", double " : ", float ") + scalar;
  const std::string result = evaluate(m, op, dtype, args, scalar);

  std::string source = "// " + op_name + " on " + std::string(dtype_name(dtype)) +
                       ", written by ember's CUDA C emitter (src/codegen) from ir/formulas.h\n";
  source += helpers;
  source += "extern \"C\" __global__ void ";
  source += kernel_name;
  source += "(" + parameters + ") {\n";
  source += "  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;\n";
  source += "       i += (long long)gridDim.x * blockDim.x) {\n";
  source += m.statements();
  source += "    out[i] = " + cuda::store(result_dtype, result) + ";\n";
  source += "  }\n}\n";
  return source;
}

}  // namespace ember::codegen
