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

CudaC::CudaC(DType compute, std::string indent)
    : f64_(compute == DType::F64), indent_(std::move(indent)) {
  if (compute != DType::F64 && compute != DType::F32)
    throw InvalidArgument("[codegen] CUDA C computes in f32 or f64, not " +
                          std::string(dtype_name(compute)));
}

std::string CudaC::append(std::string_view type, std::string_view expression) const {
  std::string name = "v" + std::to_string(variables_++);
  statements_ += indent_;
  statements_ += "const ";
  statements_ += type;
  statements_ += ' ';
  statements_ += name;
  statements_ += " = ";
  statements_ += expression;
  statements_ += ";\n";
  return name;
}

std::string CudaC::call(std::string_view function, const Value& x) const {
  return append(f64_ ? "double" : "float",
                std::string(function) + (f64_ ? "" : "f") + "(" + x + ")");
}

std::string CudaC::call(std::string_view function, const Value& a, const Value& b) const {
  return append(f64_ ? "double" : "float",
                std::string(function) + (f64_ ? "" : "f") + "(" + a + ", " + b + ")");
}

CudaC::Value CudaC::define(std::string_view expression) const {
  return append(f64_ ? "double" : "float", expression);
}

CudaC::Mask CudaC::define_mask(std::string_view expression) const {
  std::string name = append("bool", expression);
  masks_.insert(name);
  return name;
}

std::string CudaC::literal(double c) const {
  return f64_ ? hex_literal(c) : hex_literal(static_cast<float>(c));
}

CudaC::Value CudaC::constant(double c) const {
  return define(literal(c));
}

CudaC::Value CudaC::lowest() const {
  return define(f64_ ? hex_literal(std::numeric_limits<double>::lowest())
                     : hex_literal(std::numeric_limits<float>::lowest()));
}

// The correctly rounded intrinsics: __fadd_rn and the others are never contracted into an FMA.
CudaC::Value CudaC::add(const Value& a, const Value& b) const {
  return define((f64_ ? "__dadd_rn(" : "__fadd_rn(") + a + ", " + b + ")");
}
CudaC::Value CudaC::sub(const Value& a, const Value& b) const {
  return define((f64_ ? "__dsub_rn(" : "__fsub_rn(") + a + ", " + b + ")");
}
CudaC::Value CudaC::mul(const Value& a, const Value& b) const {
  return define((f64_ ? "__dmul_rn(" : "__fmul_rn(") + a + ", " + b + ")");
}
CudaC::Value CudaC::div(const Value& a, const Value& b) const {
  return define((f64_ ? "__ddiv_rn(" : "__fdiv_rn(") + a + ", " + b + ")");
}
CudaC::Value CudaC::mul_add(const Value& a, const Value& b, const Value& c) const {
  return define((f64_ ? "fma(" : "fmaf(") + a + ", " + b + ", " + c + ")");
}
CudaC::Value CudaC::min(const Value& a, const Value& b) const {
  return define(b + " < " + a + " ? " + b + " : " + a);
}
CudaC::Value CudaC::max(const Value& a, const Value& b) const {
  return define(a + " < " + b + " ? " + b + " : " + a);
}
CudaC::Value CudaC::pow(const Value& a, const Value& b) const {
  return call("pow", a, b);
}
CudaC::Value CudaC::fmod(const Value& a, const Value& b) const {
  return call("fmod", a, b);
}

CudaC::Value CudaC::neg(const Value& x) const {
  return define("-" + x);
}
CudaC::Value CudaC::abs(const Value& x) const {
  return call("fabs", x);
}
CudaC::Value CudaC::sqrt(const Value& x) const {
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

/// The rounded value of s as an element of T holds it (ndarray's scalar_as), as a double.
template <typename T>
double rounded(const Scalar& s) {
  T element{};
  if (s.kind == Scalar::Kind::Float) {
    element = detail::convert_element<T>(s.f);
  } else if (s.kind == Scalar::Kind::Bool) {
    element = detail::convert_element<T>(s.i != 0);
  } else {
    element = detail::convert_element<T>(s.i);
  }
  return detail::convert_element<double>(element);
}

/// A value that 0 and 1 compare with as with s, held exactly by every float type (-0.5, 0, 0.5,
/// 1, 1.5 or NaN): ndarray compares a Bool tensor with the scalar's exact value.
double bool_comparand(const Scalar& s) {
  if (s.kind != Scalar::Kind::Float) {
    if (s.i < 0) return -0.5;
    return s.i == 0 ? 0.0 : s.i == 1 ? 1.0 : 1.5;
  }
  if (std::isnan(s.f)) return s.f;
  if (s.f < 0) return -0.5;
  if (s.f == 0) return 0.0;
  if (s.f < 1) return 0.5;
  return s.f == 1 ? 1.0 : 1.5;
}

/// One tensor argument of a kernel: its name and dtype.
struct Operand {
  std::string name;
  DType dtype;
};

}  // namespace

bool has_elementwise_kernel(const ir::Op& op, DType dtype) {
  return cuda::writes(op, dtype);
}

double kernel_parameter(const ir::Op& op, DType dtype) {
  if (const auto* activation = std::get_if<ir::Activation>(&op))
    return ir::parameter_of(*activation);
  const std::optional<Scalar> value = ir::scalar_of(op);
  if (!value) return 0.0;
  if (std::holds_alternative<ir::CompareScalar>(op) && dtype == DType::Bool)
    return bool_comparand(*value);
  switch (dtype) {
    case DType::F64:
      return rounded<double>(*value);
    case DType::F32:
      return rounded<float>(*value);
    case DType::F16:
      return rounded<Half>(*value);
    case DType::BF16:
      return rounded<BFloat16>(*value);
    case DType::Bool:
      return rounded<bool>(*value);
    default:
      break;
  }
  throw InvalidArgument("[" + ir::name(op) + "] no CUDA C kernel scalar for dtype " +
                        std::string(dtype_name(dtype)) +
                        " (it takes f64, f32, f16, bf16 and bool)");
}

std::string elementwise_kernel(const ir::Op& op, DType dtype, std::string_view kernel_name) {
  const std::string op_name = ir::name(op);
  if (!cuda::writes(op, dtype))
    throw InvalidArgument("[" + op_name +
                          "] the CUDA C emitter has no kernel for this op on dtype " +
                          std::string(dtype_name(dtype)) +
                          " (it writes the float unary, binary and scalar ops, the activations and "
                          "the comparisons on f64, f32, f16 and bf16; the Bool ops, comparisons, "
                          "where and mask_fill on bool; casts between a float dtype and bool)");
  if (!cuda::is_identifier(kernel_name))
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
  const std::string result = cuda::evaluate(m, op, dtype, args, scalar);

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
