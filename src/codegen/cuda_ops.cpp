// The parts every CUDA C kernel shares (cuda_ops.h): element loads and stores, and the ops
// written through their formulas. Which formula an op takes is decided here, once, for both the
// elementwise kernels and the fused programs.
#include "codegen/cuda_ops.h"

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <string>
#include <string_view>
#include <variant>

#include "ember/error.h"
#include "ir/formulas.h"
#include "ir/ops.h"
#include "ir/program.h"

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

// The integers: the wrapping power (ndarray's wrapping_pow: repeated squaring, a product wrapping
// in W, the unsigned type of at least 32 bits), and the rounding of a 32- or 64-bit integer to
// float "to odd" (ember's detail::round_to_odd_float: truncated toward zero, the last bit set when
// bits were lost), which f16 and bf16 then round correctly.
constexpr std::string_view kIntegerHelpers = R"(#ifndef EMBER_INT_HELPERS
#define EMBER_INT_HELPERS
template <typename T, typename W>
__device__ __forceinline__ T ember_ipow(T base, T exponent) {
  T result = 1;
  while (exponent > 0) {
    if (exponent % 2 == 1) result = (T)((W)result * (W)base);
    exponent = (T)(exponent / 2);
    base = (T)((W)base * (W)base);
  }
  return result;
}
__device__ __forceinline__ float ember_odd_float(long long v) {
  const float f = __ll2float_rz(v);
  return (long long)f == v ? f : __uint_as_float(__float_as_uint(f) | 1u);
}
__device__ __forceinline__ float ember_odd_float(unsigned long long v) {
  const float f = __ull2float_rz(v);
  return (unsigned long long)f == v ? f : __uint_as_float(__float_as_uint(f) | 1u);
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
    case DType::I64:
      return {"long long", kIntegerHelpers, "", ""};
    case DType::I32:
      return {"int", kIntegerHelpers, "", ""};
    case DType::I16:
      return {"short", kIntegerHelpers, "", ""};
    case DType::I8:
      return {"signed char", kIntegerHelpers, "", ""};
    case DType::U64:
      return {"unsigned long long", kIntegerHelpers, "", ""};
    case DType::U32:
      return {"unsigned int", kIntegerHelpers, "", ""};
    case DType::U16:
      return {"unsigned short", kIntegerHelpers, "", ""};
    case DType::U8:
      return {"unsigned char", kIntegerHelpers, "", ""};
  }
  throw InvalidArgument(std::string("[codegen] no CUDA C storage for dtype ") +
                        std::string(dtype_name(dtype)));
}

/// expression passed through function, or expression itself when function is empty.
std::string call_if(std::string_view function, const std::string& expression) {
  return function.empty() ? expression : std::string(function) + "(" + expression + ")";
}

/// Whether the emitter writes a Cast from dtype to `to` (another dtype): between any two dtypes
/// but two float dtypes (a program computes in one float type).
bool casts(DType from, DType to) {
  return from != to && !(is_float(from) && is_float(to));
}

/// The target computing op's values on dtype: m itself for a float dtype and Bool (masks), a
/// target on the integer dtype sharing m's statements otherwise.
CudaC target_for(const CudaC& m, DType dtype) {
  return is_int(dtype) ? m.on(dtype) : m;
}

/// x, a variable of from (a target on `from`'s values, as target_for gives it), converted to
/// `to` as ember converts an element (detail::convert_element), a variable of to (target_for of
/// `to`). Neither dtype is Bool, and they are not two float dtypes.
std::string convert(const CudaC& from, DType from_dtype, const CudaC& to, DType to_dtype,
                    const std::string& x) {
  const std::string to_type(to.type());
  if (is_int(from_dtype) && is_int(to_dtype)) return to.define("(" + to_type + ")" + x);  // wraps
  if (is_int(from_dtype)) {
    // f32 and f64 round to nearest (C's conversion); f16 and bf16 round from the float that holds
    // the integer rounded to odd, as ember does, so that they round once (the store, or the
    // rounding of an f16 or bf16 result, follows).
    const bool half = to_dtype == DType::F16 || to_dtype == DType::BF16;
    if (half && dtype_size(from_dtype) >= 4)
      return to.define(std::string("ember_odd_float((") +
                       (is_signed_int(from_dtype) ? "long long" : "unsigned long long") + ")" + x +
                       ")");
    return to.define("(" + to_type + ")" + x);
  }
  // A float to an integer: truncated toward zero and saturated, NaN 0, compared in the float's
  // type with the integer type's bounds converted to it (detail::convert_element).
  const auto bound = [&](bool lowest) {
    const double value = [&] {
      switch (to_dtype) {
        case DType::I64:
          return lowest ? -0x1p63 : static_cast<double>(std::numeric_limits<int64_t>::max());
        case DType::I32:
          return lowest ? -0x1p31 : static_cast<double>(std::numeric_limits<int32_t>::max());
        case DType::I16:
          return lowest ? -0x1p15 : static_cast<double>(std::numeric_limits<int16_t>::max());
        case DType::I8:
          return lowest ? -0x1p7 : static_cast<double>(std::numeric_limits<int8_t>::max());
        case DType::U64:
          return lowest ? 0.0 : static_cast<double>(std::numeric_limits<uint64_t>::max());
        case DType::U32:
          return lowest ? 0.0 : static_cast<double>(std::numeric_limits<uint32_t>::max());
        case DType::U16:
          return lowest ? 0.0 : static_cast<double>(std::numeric_limits<uint16_t>::max());
        default:
          return lowest ? 0.0 : static_cast<double>(std::numeric_limits<uint8_t>::max());
      }
    }();
    // (From)max: the double of a 64-bit max is 2^63 or 2^64, as C++ rounds it; a float literal
    // rounds it once more, to nearest, as static_cast<float> of the integer does.
    return from.literal(value);
  };
  const std::string lowest = is_signed_int(to_dtype)
                                 ? to.integer_literal(std::numeric_limits<int64_t>::min() >>
                                                      (64 - 8 * dtype_size(to_dtype)))
                                 : to.integer_literal(0);
  const std::string max =
      is_signed_int(to_dtype)
          ? to.integer_literal(std::numeric_limits<int64_t>::max() >>
                               (64 - 8 * dtype_size(to_dtype)))
          : to.integer_literal(static_cast<int64_t>(std::numeric_limits<uint64_t>::max() >>
                                                    (64 - 8 * dtype_size(to_dtype))));
  return to.define(x + " != " + x + " ? " + to.integer_literal(0) + " : " + x +
                   " <= " + bound(true) + " ? " + lowest + " : " + x + " >= " + bound(false) +
                   " ? " + max + " : (" + to_type + ")" + x);
}

}  // namespace

bool has_storage(DType dtype) {
  return static_cast<std::size_t>(dtype) < std::size(kAllDTypes);
}

std::string_view storage_type(DType dtype) {
  return storage_of(dtype).type;
}

std::string_view storage_helpers(DType dtype) {
  return storage_of(dtype).helpers;
}

std::string load(const CudaC& m, DType dtype, const std::string& element) {
  if (dtype == DType::Bool) return m.define_mask(element + " != 0");
  if (is_int(dtype)) return m.on(dtype).define(element);
  return m.define(call_if(storage_of(dtype).load, element));
}

std::string store(DType dtype, const std::string& value) {
  if (dtype == DType::Bool) return "(unsigned char)" + value;
  return call_if(storage_of(dtype).store, value);
}

bool writes(const ir::Op& op, DType dtype) {
  if (!has_storage(dtype)) return false;
  const bool floats = is_float(dtype);
  const bool bools = dtype == DType::Bool;
  const bool ints = is_int(dtype);
  if (const auto* unary = std::get_if<ir::Unary>(&op)) {
    if (!in_table(unary->op)) return false;
    if (unary->op == ir::UnaryOp::Not) return bools;
    // neg, abs and sign take integers too (their formulas over the integer target).
    const bool integer_op = unary->op == ir::UnaryOp::Neg || unary->op == ir::UnaryOp::Abs ||
                            unary->op == ir::UnaryOp::Sign;
    return floats || (ints && integer_op);
  }
  // On integers, a division, remainder or power whose divisor or exponent is a tensor stays on
  // the host: ndarray throws for a zero divisor and a negative exponent, which a kernel cannot.
  // With the scalar on the right, ir::infer has refused those values already.
  const auto binary_op = [&](ir::BinaryOp o, bool tensor_right) {
    if (!in_table(o)) return false;
    if (!formula::is_float_binary(o)) return bools;
    const bool checked = o != ir::BinaryOp::Div && o != ir::BinaryOp::Rem && o != ir::BinaryOp::Pow;
    return floats || (ints && (checked || !tensor_right));
  };
  if (const auto* binary = std::get_if<ir::Binary>(&op)) return binary_op(binary->op, true);
  if (const auto* binary = std::get_if<ir::BinaryScalar>(&op))
    return binary_op(binary->op, binary->scalar_lhs);
  if (const auto* compare = std::get_if<ir::Compare>(&op)) return in_table(compare->op);
  // An integer of 64 bits compares with an Int scalar exactly and with a Float one in double
  // (ndarray): the kernel, which takes the value but not its kind, leaves those to the host.
  if (const auto* compare = std::get_if<ir::CompareScalar>(&op))
    return in_table(compare->op) && !(ints && dtype_size(dtype) == 8);
  if (std::holds_alternative<ir::Where>(op) || std::holds_alternative<ir::MaskFill>(op))
    return true;
  if (const auto* cast = std::get_if<ir::Cast>(&op))
    return has_storage(cast->dtype) && casts(dtype, cast->dtype);
  if (const auto* activation = std::get_if<ir::Activation>(&op))
    return in_table(activation->op) && floats;
  return false;
}

bool takes_integer_scalar(const ir::Op& op, DType dtype) {
  return is_int(dtype) && ir::scalar_of(op).has_value() &&
         !std::holds_alternative<ir::CompareScalar>(op);
}

std::string evaluate(const CudaC& m, const ir::Op& op, DType dtype,
                     std::span<const std::string> args, std::string_view scalar) {
  // The target of dtype's values: m for a float dtype and Bool, the integer's own target for an
  // integer dtype.
  const CudaC t = target_for(m, dtype);
  // The scalar as a value of the compute type (an integer scalar is of the integer's type
  // already: kernel_integer_parameter), or as a mask where the elements are Bool (the scalar is
  // 0 or 1 there: kernel_parameter).
  const auto value = [&] {
    return is_int(dtype) ? t.define("(" + std::string(t.type()) + ")" + std::string(scalar))
                         : m.define(scalar);
  };
  const auto scalar_of_dtype = [&] {
    return dtype == DType::Bool ? formula::to_bool(m, value()) : value();
  };
  if (const auto* unary = std::get_if<ir::Unary>(&op)) {
    if (formula::is_float_unary(unary->op)) return formula::unary(t, unary->op, args[0]);
    if (unary->op == ir::UnaryOp::Not) return formula::bool_not(m, args[0]);
    return formula::float_predicate(m, unary->op, args[0]);
  }
  const auto binary_formula = [&](ir::BinaryOp o, const std::string& a, const std::string& b) {
    return formula::is_float_binary(o) ? formula::binary(t, o, a, b) : formula::logical(m, o, a, b);
  };
  if (const auto* binary = std::get_if<ir::Binary>(&op))
    return binary_formula(binary->op, args[0], args[1]);
  if (const auto* binary = std::get_if<ir::BinaryScalar>(&op)) {
    const std::string s = scalar_of_dtype();
    return binary->scalar_lhs ? binary_formula(binary->op, s, args[0])
                              : binary_formula(binary->op, args[0], s);
  }
  if (const auto* compare = std::get_if<ir::Compare>(&op))
    return formula::compare(t, compare->op, args[0], args[1]);
  if (const auto* compare = std::get_if<ir::CompareScalar>(&op)) {
    // A Bool x compares as the float 0 or 1 with kernel_parameter's stand-in for the value; an
    // integer x (of up to 32 bits) as its double, exact, with the value's double.
    if (is_int(dtype)) {
      const CudaC d = m.on(DType::F64);
      return formula::compare(d, compare->op, d.define("(double)" + args[0]), d.define(scalar));
    }
    const std::string x = dtype == DType::Bool ? formula::from_bool(m, args[0]) : args[0];
    return formula::compare(m, compare->op, x, m.define(scalar));
  }
  if (std::holds_alternative<ir::Where>(op)) return formula::where(t, args[0], args[1], args[2]);
  if (std::holds_alternative<ir::MaskFill>(op))
    return formula::mask_fill(t, args[0], args[1], scalar_of_dtype());
  if (const auto* cast = std::get_if<ir::Cast>(&op)) {
    if (cast->dtype == dtype) return args[0];
    const CudaC to = target_for(m, cast->dtype);
    if (cast->dtype == DType::Bool) return formula::to_bool(t, args[0]);
    if (dtype == DType::Bool) return formula::from_bool(to, args[0]);
    return convert(t, dtype, to, cast->dtype, args[0]);
  }
  if (const auto* activation = std::get_if<ir::Activation>(&op))
    return formula::activation(m, activation->op, args[0], [&] { return m.define(scalar); });
  // A program input broadcasts as it is read: the expand itself is the identity.
  if (std::holds_alternative<ir::Expand>(op)) return args[0];
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
