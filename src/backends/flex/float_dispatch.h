// Dispatch on the two dtypes the SIMD kernels cover.
#pragma once

#include "ember/dtype.h"

namespace ember::flex {

/// Whether dtype has SIMD kernels (f32 and f64).
inline bool is_simd_float(DType dtype) {
  return dtype == DType::F32 || dtype == DType::F64;
}

/// body.operator()<T>() with T double for f64, float otherwise (callers check is_simd_float).
template <typename Body>
decltype(auto) visit_simd_float(DType dtype, Body&& body) {
  if (dtype == DType::F64) return body.template operator()<double>();
  return body.template operator()<float>();
}

}  // namespace ember::flex
