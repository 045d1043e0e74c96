// Unary elementwise ops.
#include <cmath>
#include <span>
#include <utility>

#include "backends/ndarray/arithmetic.h"
#include "backends/ndarray/element.h"
#include "backends/ndarray/kernels.h"
#include "backends/ndarray/scalar_math.h"
#include "ir/formulas.h"

namespace ember::ndarray {
namespace {

using ir::UnaryOp;

template <typename F>
F float_unary(const ir::Unary& op, F x, DType dtype) {
  if (!formula::is_float_unary(op.op)) throw_unsupported(op, dtype);
  return formula::unary(ScalarMath<F>{}, op.op, x);
}

// Abs and Sign of an unsigned integer are the identity and 0-or-1.
template <typename I>
I int_unary(const ir::Unary& op, I x) {
  const bool negative = std::is_signed_v<I> && std::cmp_less(x, 0);
  switch (op.op) {
    case UnaryOp::Neg:
      return wrapping_sub(I{0}, x);  // -MIN wraps to MIN
    case UnaryOp::Abs:
      return negative ? wrapping_sub(I{0}, x) : x;
    case UnaryOp::Sign:
      return negative ? static_cast<I>(-1) : static_cast<I>(x != 0);
    case UnaryOp::Exp:
    case UnaryOp::Log:
    case UnaryOp::Log1p:
    case UnaryOp::Sqrt:
    case UnaryOp::Sin:
    case UnaryOp::Cos:
    case UnaryOp::Tan:
    case UnaryOp::Tanh:
    case UnaryOp::Erf:
    case UnaryOp::Recip:
    case UnaryOp::Floor:
    case UnaryOp::Ceil:
    case UnaryOp::Round:
    case UnaryOp::Not:
    case UnaryOp::IsNan:
    case UnaryOp::IsInf:
      break;
  }
  throw_unsupported(op, dtype_of<I>());
}

template <typename T>
T unary_element(const ir::Unary& op, T x) {
  if constexpr (is_float_v<T>) {
    return store<T>(float_unary(op, load(x), dtype_of<T>()));
  } else if constexpr (is_bool_v<T>) {
    if (op.op != UnaryOp::Not) throw_unsupported(op, DType::Bool);
    return !x;
  } else {
    return int_unary(op, x);
  }
}

bool is_predicate(UnaryOp op) {
  return op == UnaryOp::IsNan || op == UnaryOp::IsInf;
}

template <typename T>
bool predicate_element(const ir::Unary& op, T x) {
  if constexpr (is_float_v<T>) {
    return op.op == UnaryOp::IsNan ? std::isnan(load(x)) : std::isinf(load(x));
  } else {
    throw_unsupported(op, dtype_of<T>());
  }
}

/// Writes f(values[i]) into result, viewed as Out.
template <typename Out, typename T, typename F>
void map_into(std::span<const T> values, TensorData& result, F f) {
  auto dst = result.as_mut<Out>();
  for (std::size_t i = 0; i < values.size(); ++i)
    dst[i] = f(values[i]);
}

}  // namespace

TensorData run(const ir::Unary& op, Inputs in, Outputs out) {
  const TensorData& x = *in[0];
  TensorData result = zeros_like(out[0]);
  visit_dtype(x.dtype(), [&]<typename T>() {
    if (is_predicate(op.op)) {
      map_into<bool>(x.as<T>(), result, [&](T v) { return predicate_element(op, v); });
    } else {
      map_into<T>(x.as<T>(), result, [&](T v) { return unary_element(op, v); });
    }
  });
  return result;
}

}  // namespace ember::ndarray
