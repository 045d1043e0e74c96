// The parts every CUDA C kernel shares (cuda_ops.h): element loads and stores.
#include "codegen/cuda_ops.h"

#include <string>
#include <string_view>

#include "ember/error.h"

namespace ember::codegen::cuda {
namespace {

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

}  // namespace

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

}  // namespace ember::codegen::cuda
