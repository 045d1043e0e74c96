// The CUDA C emitter (cuda_c.h): the primitives of formulas.h as CUDA C statements, and the
// elementwise kernels built from them. Every formula comes from formulas.h; this file only says
// how each primitive is spelled in CUDA C.
#include "codegen/cuda_c.h"

#include <charconv>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

#include "ember/error.h"
#include "ir/formulas.h"
#include "ir/ops.h"

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

/// Whether op is an enumerator of its op table (an op decoded from outside bytes may not be).
template <typename Enum>
bool in_table(Enum op) {
  return static_cast<std::size_t>(op) < ir::kOpCount<Enum>;
}

bool has_formula(const ir::Op& op) {
  if (const auto* unary = std::get_if<ir::Unary>(&op))
    return in_table(unary->op) && formula::is_float_unary(unary->op);
  if (const auto* binary = std::get_if<ir::Binary>(&op))
    return in_table(binary->op) && formula::is_float_binary(binary->op);
  if (const auto* activation = std::get_if<ir::Activation>(&op)) return in_table(activation->op);
  return false;
}

bool is_identifier(std::string_view name) {
  const auto letter = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  };
  if (name.empty() || !letter(name.front())) return false;
  for (const char c : name)
    if (!letter(c) && !(c >= '0' && c <= '9')) return false;
  return true;
}

/// How a kernel on a dtype reads and writes its elements.
struct Storage {
  std::string_view type;     ///< the element type of the kernel's pointers
  std::string_view helpers;  ///< definitions the kernel needs before it (f16, bf16)
  std::string_view load;     ///< the function reading an element into float, if any
  std::string_view store;    ///< the function rounding a float to an element, if any
};

// The helpers are guarded, so that the sources of several kernels concatenated compile as one.
// f16: the hardware's conversions (PTX cvt; round to nearest, ties to even, on the way back).
constexpr std::string_view kHalfHelpers = R"(#ifndef EMBER_F16_HELPERS
#define EMBER_F16_HELPERS
__device__ __forceinline__ float ember_load_f16(unsigned short h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return f;
}
__device__ __forceinline__ unsigned short ember_store_f16(float f) {
  unsigned short h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
}
#endif
)";
// bf16: the high half of a float's bits, rounded to nearest, ties to even, as ember::BFloat16
// does: a NaN stays a NaN, its payload's high bits kept, else its quiet bit set.
constexpr std::string_view kBFloat16Helpers = R"(#ifndef EMBER_BF16_HELPERS
#define EMBER_BF16_HELPERS
__device__ __forceinline__ float ember_load_bf16(unsigned short h) {
  return __uint_as_float((unsigned int)h << 16);
}
__device__ __forceinline__ unsigned short ember_store_bf16(float f) {
  const unsigned int u = __float_as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) {
    const unsigned int payload = (u >> 16) & 0x7fu;
    return (unsigned short)(((u >> 16) & 0xff80u) | (payload != 0u ? payload : 0x40u));
  }
  return (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
#endif
)";

Storage storage_of(DType dtype) {
  switch (dtype) {
    case DType::F64:
      return {"double", "", "", ""};
    case DType::F32:
      return {"float", "", "", ""};
    case DType::F16:
      return {"unsigned short", kHalfHelpers, "ember_load_f16", "ember_store_f16"};
    case DType::BF16:
      return {"unsigned short", kBFloat16Helpers, "ember_load_bf16", "ember_store_bf16"};
    default:
      break;
  }
  throw InvalidArgument(std::string("[codegen] no CUDA C storage for dtype ") +
                        std::string(dtype_name(dtype)));
}

/// expression passed through function, or expression itself when function is empty.
std::string call_if(std::string_view function, const std::string& expression) {
  return function.empty() ? expression : std::string(function) + "(" + expression + ")";
}

bool has_storage(DType dtype) {
  return dtype == DType::F64 || dtype == DType::F32 || dtype == DType::F16 || dtype == DType::BF16;
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

CudaC::Value CudaC::constant(double c) const {
  return define(f64_ ? hex_literal(c) : hex_literal(static_cast<float>(c)));
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
  return append("bool", a + " < " + b);
}
CudaC::Mask CudaC::le(const Value& a, const Value& b) const {
  return append("bool", a + " <= " + b);
}
CudaC::Mask CudaC::gt(const Value& a, const Value& b) const {
  return append("bool", a + " > " + b);
}
CudaC::Mask CudaC::ge(const Value& a, const Value& b) const {
  return append("bool", a + " >= " + b);
}
CudaC::Mask CudaC::eq(const Value& a, const Value& b) const {
  return append("bool", a + " == " + b);
}
CudaC::Mask CudaC::is_nan(const Value& x) const {
  return append("bool", "isnan(" + x + ")");
}
CudaC::Value CudaC::select(const Mask& m, const Value& a, const Value& b) const {
  return define(m + " ? " + a + " : " + b);
}

// ---- kernels ----------------------------------------------------------------------------------

bool has_elementwise_kernel(const ir::Op& op, DType dtype) {
  return has_formula(op) && has_storage(dtype);
}

std::string elementwise_kernel(const ir::Op& op, DType dtype, std::string_view kernel_name) {
  const std::string op_name = ir::name(op);
  if (!has_formula(op))
    throw InvalidArgument("[" + op_name +
                          "] the CUDA C emitter has no kernel for this op (it writes the float "
                          "unary and binary ops and the activations), asked for dtype " +
                          std::string(dtype_name(dtype)));
  if (!has_storage(dtype))
    throw InvalidArgument("[" + op_name + "] the CUDA C emitter has no kernel for dtype " +
                          std::string(dtype_name(dtype)) + " (it takes f64, f32, f16 and bf16)");
  if (!is_identifier(kernel_name))
    throw InvalidArgument("[" + op_name + "] kernel name \"" + std::string(kernel_name) +
                          "\" is not a C identifier");

  const bool f64 = dtype == DType::F64;
  const std::string compute = f64 ? "double" : "float";
  const Storage storage = storage_of(dtype);
  const std::string pointer = std::string(storage.type) + "*";
  const CudaC m(f64 ? DType::F64 : DType::F32, "    ");
  const auto load = [&](std::string_view array) {
    const std::string element = std::string(array) + "[i]";
    return m.define(call_if(storage.load, element));
  };

  std::string parameters;
  CudaC::Value result;
  if (const auto* binary = std::get_if<ir::Binary>(&op)) {
    parameters =
        "const " + pointer + " a, const " + pointer + " b, " + pointer + " out, long long n";
    const CudaC::Value a = load("a");
    const CudaC::Value b = load("b");
    result = formula::binary(m, binary->op, a, b);
  } else {
    parameters =
        "const " + pointer + " x, " + pointer + " out, long long n, " + compute + " parameter";
    const CudaC::Value x = load("x");
    if (const auto* unary = std::get_if<ir::Unary>(&op)) {
      result = formula::unary(m, unary->op, x);
    } else {
      const auto& activation = std::get<ir::Activation>(op);
      const auto parameter = [] { return CudaC::Value("parameter"); };
      result = formula::activation(m, activation.op, x, parameter);
    }
  }

  std::string source = "// " + op_name + " on " + std::string(dtype_name(dtype)) +
                       ", written by ember's CUDA C emitter (src/codegen) from ir/formulas.h\n";
  source += storage.helpers;
  source += "extern \"C\" __global__ void ";
  source += kernel_name;
  source += "(" + parameters + ") {\n";
  source += "  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;\n";
  source += "       i += (long long)gridDim.x * blockDim.x) {\n";
  source += m.statements();
  source += "    out[i] = " + call_if(storage.store, result) + ";\n";
  source += "  }\n}\n";
  return source;
}

}  // namespace ember::codegen
