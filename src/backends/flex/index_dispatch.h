// Dispatch on the two index dtypes flex kernels read and write (i32, i64); other integer dtypes
// are left to ndarray.
#pragma once

#include <cstdint>

#include "ember/dtype.h"

namespace ember::flex {

/// Whether flex kernels handle indices of dtype (i32 and i64).
inline bool is_flex_index(DType dtype) {
  return dtype == DType::I64 || dtype == DType::I32;
}

/// body.operator()<I>() with I int32_t for i32, int64_t otherwise (callers check is_flex_index).
template <typename Body>
decltype(auto) visit_flex_index(DType dtype, Body&& body) {
  if (dtype == DType::I32) return body.template operator()<int32_t>();
  return body.template operator()<int64_t>();
}

}  // namespace ember::flex
