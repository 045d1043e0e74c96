// Element types as the kernels see them: which dtypes are float-like, the type an element is
// computed in, and conversions of scalars. f16 and bf16 are stored natively and computed in f32:
// load widens, store rounds to nearest even (Half's and BFloat16's constructors).
#pragma once

#include <cmath>
#include <type_traits>

#include "ember/float16.h"
#include "ember/scalar.h"
#include "ember/tensor_data.h"

namespace ember::ndarray {

template <typename T>
inline constexpr bool is_half_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;
/// f64, f32, f16, bf16.
template <typename T>
inline constexpr bool is_float_v = std::is_floating_point_v<T> || is_half_v<T>;
/// Signed and unsigned integers (not bool).
template <typename T>
inline constexpr bool is_int_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;
template <typename T>
inline constexpr bool is_bool_v = std::is_same_v<T, bool>;

/// The type one element of T is computed in: f32 for f16/bf16, T itself otherwise.
template <typename T>
using compute_t = std::conditional_t<is_half_v<T>, float, T>;
/// The type a reduction over T accumulates in: double for every float (then rounded once to
/// T), T itself for ints and bool (integer sums wrap like the elementwise ops).
template <typename T>
using accumulator_t = std::conditional_t<is_float_v<T>, double, T>;

template <typename T>
compute_t<T> load(T value) {
  return static_cast<compute_t<T>>(value);
}
template <typename T>
T store(compute_t<T> value) {
  return T(value);
}

template <typename T>
bool is_nan(T value) {
  if constexpr (is_float_v<T>) {
    return std::isnan(load(value));
  } else {
    return false;
  }
}

/// Nonzero is true (NaN included, as in PyTorch).
template <typename T>
bool is_nonzero(T value) {
  return load(value) != compute_t<T>{};
}

/// s converted to T as a tensor of dtype T would hold it (floats saturate into ints).
template <typename T>
T scalar_as(const Scalar& s) {
  if (s.kind == Scalar::Kind::Float) return detail::convert_element<T>(s.f);
  if (s.kind == Scalar::Kind::Bool) return detail::convert_element<T>(s.i != 0);
  return detail::convert_element<T>(s.i);
}

}  // namespace ember::ndarray
