// Comparisons: tensor op tensor (broadcast) and tensor op scalar, giving Bool.
#include <span>
#include <type_traits>
#include <utility>

#include "backends/ndarray/broadcast_map.h"
#include "backends/ndarray/element.h"
#include "backends/ndarray/kernels.h"

namespace ember::ndarray {
namespace {

using ir::CompareOp;

/// a op b. Two integers of any types compare by value (std::cmp_*: no sign-conversion
/// surprises); otherwise the built-in operators, so a NaN is unequal to everything.
template <typename A, typename B>
bool compare_values(CompareOp op, A a, B b) {
  if constexpr (is_int_v<A> && is_int_v<B>) {
    switch (op) {
      case CompareOp::Equal:
        return std::cmp_equal(a, b);
      case CompareOp::NotEqual:
        return std::cmp_not_equal(a, b);
      case CompareOp::Greater:
        return std::cmp_greater(a, b);
      case CompareOp::GreaterEqual:
        return std::cmp_greater_equal(a, b);
      case CompareOp::Lower:
        return std::cmp_less(a, b);
      case CompareOp::LowerEqual:
        return std::cmp_less_equal(a, b);
    }
  } else {
    switch (op) {
      case CompareOp::Equal:
        return a == b;
      case CompareOp::NotEqual:
        return a != b;
      case CompareOp::Greater:
        return a > b;
      case CompareOp::GreaterEqual:
        return a >= b;
      case CompareOp::Lower:
        return a < b;
      case CompareOp::LowerEqual:
        return a <= b;
    }
  }
  return false;  // unreachable: every CompareOp is handled above
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
