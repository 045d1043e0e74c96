// Dispatch on the dtypes the SIMD kernels cover: f32 and f64 natively, bf16 and f16 stored narrow
// and computed in f32 (narrow.h).
#pragma once

#include <utility>

#include "ember/dtype.h"
#include "ember/float16.h"

namespace ember::flex {

/// Whether dtype has SIMD kernels (f32 and f64).
inline bool is_simd_float(DType dtype) {
  return dtype == DType::F32 || dtype == DType::F64;
}

/// Whether dtype is stored in 16 bits and computed in f32 by the SIMD kernels (bf16, f16).
inline bool is_narrow_float(DType dtype) {
  return dtype == DType::BF16 || dtype == DType::F16;
}

/// Whether the SIMD kernels take dtype, directly or through narrow.h's f32 chunks.
inline bool is_kernel_float(DType dtype) {
  return is_simd_float(dtype) || is_narrow_float(dtype);
}

/// body.operator()<T>() with T double for f64, float otherwise (callers check is_simd_float).
template <typename Body>
decltype(auto) visit_simd_float(DType dtype, Body&& body) {
  if (dtype == DType::F64) return body.template operator()<double>();
  return body.template operator()<float>();
}

/// visit_simd_float, and T BFloat16 for bf16, Half for f16 (callers check is_kernel_float).
template <typename Body>
decltype(auto) visit_kernel_float(DType dtype, Body&& body) {
  if (dtype == DType::BF16) return body.template operator()<BFloat16>();
  if (dtype == DType::F16) return body.template operator()<Half>();
  return visit_simd_float(dtype, std::forward<Body>(body));
}

}  // namespace ember::flex
