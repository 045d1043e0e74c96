// The parts every CUDA C kernel shares (cuda_ops.h): element loads and stores, and the ops
// written through their formulas. Which formula an op takes is decided here, once, for both the
// elementwise kernels and the fused programs.
#include "codegen/cuda_ops.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <variant>

#include "ember/error.h"
#include "ir/formulas.h"
#include "ir/ops.h"

namespace ember::codegen::cuda {
namespace {

/// Whether op is an enumerator of its op table (an op decoded from outside bytes may not be).
template <typename Enum>
bool in_table(Enum op) {
  return static_cast<std::size_t>(op) < ir::kOpCount<Enum>;
}

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

/// How a kernel reads and writes an element of a dtype.
struct Storage {
  std::string_view type;     ///< the element type of the kernel's pointers
  std::string_view helpers;  ///< definitions the kernel needs before it (f16, bf16)
  std::string_view load;     ///< the function reading an element into float, if any
  std::string_view store;    ///< the function rounding a float to an element, if any
};

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
    case DType::Bool:
      return {"unsigned char", "", "", ""};
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

/// Whether a Cast from dtype to `to` changes a float into a Bool or a Bool into a float.
bool casts_kind(DType from, DType to) {
  return (is_float(from) && to == DType::Bool) || (from == DType::Bool && is_float(to));
}

}  // namespace

bool has_storage(DType dtype) {
  return is_float(dtype) || dtype == DType::Bool;
}

std::string_view storage_type(DType dtype) {
  return storage_of(dtype).type;
}

std::string_view storage_helpers(DType dtype) {
  return storage_of(dtype).helpers;
}

std::string load(const CudaC& m, DType dtype, const std::string& element) {
  if (dtype == DType::Bool) return m.define_mask(element + " != 0");
  return m.define(call_if(storage_of(dtype).load, element));
}

std::string store(DType dtype, const std::string& value) {
  if (dtype == DType::Bool) return "(unsigned char)" + value;
  return call_if(storage_of(dtype).store, value);
}

bool writes(const ir::Op& op, DType dtype) {
  const bool floats = is_float(dtype);
  const bool bools = dtype == DType::Bool;
  if (const auto* unary = std::get_if<ir::Unary>(&op))
    return in_table(unary->op) && (unary->op == ir::UnaryOp::Not ? bools : floats);
  const auto binary_op = [&](ir::BinaryOp o) {
    return in_table(o) && (formula::is_float_binary(o) ? floats : bools);
  };
  if (const auto* binary = std::get_if<ir::Binary>(&op)) return binary_op(binary->op);
  if (const auto* binary = std::get_if<ir::BinaryScalar>(&op)) return binary_op(binary->op);
  if (const auto* compare = std::get_if<ir::Compare>(&op))
    return in_table(compare->op) && (floats || bools);
  if (const auto* compare = std::get_if<ir::CompareScalar>(&op))
    return in_table(compare->op) && (floats || bools);
  if (std::holds_alternative<ir::Where>(op) || std::holds_alternative<ir::MaskFill>(op))
    return floats || bools;
  if (const auto* cast = std::get_if<ir::Cast>(&op)) return casts_kind(dtype, cast->dtype);
  if (const auto* activation = std::get_if<ir::Activation>(&op))
    return in_table(activation->op) && floats;
  return false;
}

std::string evaluate(const CudaC& m, const ir::Op& op, DType dtype,
                     std::span<const std::string> args, std::string_view scalar) {
  // The scalar as a value of the compute type, or as a mask where the elements are Bool (the
  // scalar is 0 or 1 there: kernel_parameter).
  const auto value = [&] { return m.define(scalar); };
  const auto scalar_of_dtype = [&] {
    return dtype == DType::Bool ? formula::to_bool(m, value()) : value();
  };
  if (const auto* unary = std::get_if<ir::Unary>(&op)) {
    if (formula::is_float_unary(unary->op)) return formula::unary(m, unary->op, args[0]);
    if (unary->op == ir::UnaryOp::Not) return formula::bool_not(m, args[0]);
    return formula::float_predicate(m, unary->op, args[0]);
  }
  const auto binary_formula = [&](ir::BinaryOp o, const std::string& a, const std::string& b) {
    return formula::is_float_binary(o) ? formula::binary(m, o, a, b) : formula::logical(m, o, a, b);
  };
  if (const auto* binary = std::get_if<ir::Binary>(&op))
    return binary_formula(binary->op, args[0], args[1]);
  if (const auto* binary = std::get_if<ir::BinaryScalar>(&op)) {
    const std::string s = scalar_of_dtype();
    return binary->scalar_lhs ? binary_formula(binary->op, s, args[0])
                              : binary_formula(binary->op, args[0], s);
  }
  if (const auto* compare = std::get_if<ir::Compare>(&op))
    return formula::compare(m, compare->op, args[0], args[1]);
  if (const auto* compare = std::get_if<ir::CompareScalar>(&op)) {
    // A Bool x compares as the float 0 or 1 with kernel_parameter's stand-in for the value.
    const std::string x = dtype == DType::Bool ? formula::from_bool(m, args[0]) : args[0];
    return formula::compare(m, compare->op, x, value());
  }
  if (std::holds_alternative<ir::Where>(op)) return formula::where(m, args[0], args[1], args[2]);
  if (std::holds_alternative<ir::MaskFill>(op))
    return formula::mask_fill(m, args[0], args[1], scalar_of_dtype());
  if (const auto* cast = std::get_if<ir::Cast>(&op)) {
    if (cast->dtype == dtype) return args[0];
    return cast->dtype == DType::Bool ? formula::to_bool(m, args[0])
                                      : formula::from_bool(m, args[0]);
  }
  if (const auto* activation = std::get_if<ir::Activation>(&op))
    return formula::activation(m, activation->op, args[0], value);
  throw InvalidArgument("[" + ir::name(op) + "] the CUDA C emitter has no formula for this op");
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

}  // namespace ember::codegen::cuda
