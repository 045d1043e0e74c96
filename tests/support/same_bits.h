// Bit-for-bit comparison of tensors that lets any NaN equal any NaN: IEEE 754 leaves a NaN
// result's payload and sign open, and GPUs return their own (NVIDIA's max, min and additions of a
// NaN did on an H100, where lavapipe kept the input's), while every other value, -0 against +0
// included, must match exactly.
#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ember/tensor_data.h"

namespace ember::test {

/// a and b have the same shape, dtype and values bit for bit, where any NaN equals any NaN.
inline bool same_bits_or_both_nan(const TensorData& a, const TensorData& b) {
  if (a.shape() != b.shape() || a.dtype() != b.dtype()) return false;
  if (!is_float(a.dtype())) return a == b;
  // Widening to f64 is exact for every float dtype: equal bits there are equal values and signs.
  const std::vector<double> x = a.convert(DType::F64).to_vector<double>();
  const std::vector<double> y = b.convert(DType::F64).to_vector<double>();
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i]) && std::isnan(y[i])) continue;
    if (std::bit_cast<uint64_t>(x[i]) != std::bit_cast<uint64_t>(y[i])) return false;
  }
  return true;
}

}  // namespace ember::test
