// The one rule on how large a tensor may be, shared by the op rules (ir::infer, which every op
// on every backend passes through), composite ops, TensorData (every upload) and the file readers
// (which refuse a file's shape before reading its data): its bytes, and the byte stride of each
// of its dims, must be countable in an int64, the type of every size, stride and offset in ember.
// A backend may then compute bytes and offsets without overflow.
#pragma once

#include <cstdint>
#include <optional>

#include "ember/dtype.h"
#include "ember/shape.h"

namespace ember {

/// The bytes of a tensor of shape and dtype, or nullopt when a dim is negative or that count or
/// a dim's byte stride (the product of the dims after it, a zero dim counted as 1, times the
/// dtype's size) exceeds INT64_MAX. An empty tensor may have huge dims: [2^63 - 1, 0] is fine.
inline std::optional<int64_t> checked_tensor_bytes(const Shape& shape, DType dtype) {
  const auto element = static_cast<int64_t>(dtype_size(dtype));
  int64_t bytes = element;
  int64_t stride = element;  // of the dim being visited
  for (std::size_t i = shape.rank(); i-- > 0;) {
    const int64_t dim = shape[i];
    if (dim < 0 || __builtin_mul_overflow(bytes, dim, &bytes)) return std::nullopt;
    if (i > 0 && __builtin_mul_overflow(stride, dim == 0 ? 1 : dim, &stride)) return std::nullopt;
  }
  return bytes;
}

}  // namespace ember
