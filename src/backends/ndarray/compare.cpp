// Comparisons: tensor op tensor (broadcast) and tensor op scalar, giving Bool.
#include <span>
#include <type_traits>
#include <utility>

#include "backends/ndarray/broadcast_map.h"
#include "backends/ndarray/element.h"
#include "backends/ndarray/kernels.h"
#include "ir/formulas.h"

namespace ember::ndarray {
namespace {

using ir::CompareOp;

/// The comparison primitives of the formulas (ir/formulas.h) on two values of any types: two
/// integers compare by value (std::cmp_*: no sign-conversion surprises), the rest by C++'s
/// operators, so that a NaN is unequal to everything.
struct CompareMath {
  template <typename A, typename B>
  static constexpr bool kByValue = is_int_v<A>&& is_int_v<B>;

  template <typename A, typename B>
  static bool eq(A a, B b) {
    if constexpr (kByValue<A, B>) {
      return std::cmp_equal(a, b);
    } else {
      return a == b;
    }
  }
  template <typename A, typename B>
  static bool ne(A a, B b) {
    return !eq(a, b);
  }
  template <typename A, typename B>
  static bool lt(A a, B b) {
    if constexpr (kByValue<A, B>) {
      return std::cmp_less(a, b);
    } else {
      return a < b;
    }
  }
  template <typename A, typename B>
  static bool gt(A a, B b) {
    return lt(b, a);
  }
  template <typename A, typename B>
  static bool le(A a, B b) {
    if constexpr (kByValue<A, B>) {
      return std::cmp_less_equal(a, b);
    } else {
      return a <= b;
    }
  }
  template <typename A, typename B>
  static bool ge(A a, B b) {
    return le(b, a);
  }
};

template <typename A, typename B>
bool compare_values(CompareOp op, A a, B b) {
  return formula::compare(CompareMath{}, op, a, b);
}

/// Writes compare(x[i]) for every element into result (Bool).
template <typename T, typename F>
void compare_each(std::span<const T> x, TensorData& result, F compare) {
  auto dst = result.as_mut<bool>();
  for (std::size_t i = 0; i < x.size(); ++i)
    dst[i] = compare(load(x[i]));
}

/// x op value. A float tensor compares with the value rounded to its dtype (as PyTorch: the
/// scalar does not promote), so f32 0.1 equals the scalar 0.1. An int or bool (0 or 1) tensor
/// compares exactly: with an int value by value (300 is greater than every u8, true is not
/// equal to 2), with a float value in f64 (2 is lower than 2.5).
template <typename T>
void compare_with_scalar(const ir::CompareScalar& op, std::span<const T> x, TensorData& result) {
  const auto compare_with = [&](auto value) {
    compare_each(x, result, [&](compute_t<T> v) { return compare_values(op.op, v, value); });
  };
  if constexpr (is_int_v<T> || is_bool_v<T>) {
    if (op.value.kind == Scalar::Kind::Float) {
      compare_with(op.value.f);
    } else {
      compare_with(op.value.i);
    }
  } else {
    compare_with(load(scalar_as<T>(op.value)));
  }
}

}  // namespace

TensorData run(const ir::Compare& op, Inputs in, Outputs out) {
  return broadcast_map(*in[0], *in[1], out[0],
                       [&](auto a, auto b) { return compare_values(op.op, load(a), load(b)); });
}

TensorData run(const ir::CompareScalar& op, Inputs in, Outputs out) {
  const TensorData& x = *in[0];
  TensorData result = zeros_like(out[0]);
  visit_dtype(x.dtype(), [&]<typename T>() { compare_with_scalar(op, x.as<T>(), result); });
  return result;
}

}  // namespace ember::ndarray
