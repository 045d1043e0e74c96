// Unary elementwise ops.
#include <cmath>
#include <span>
#include <utility>

#include "backends/ndarray/arithmetic.h"
#include "backends/ndarray/element.h"
#include "backends/ndarray/kernels.h"
#include "ir/formulas.h"
#include "ir/scalar_math.h"

namespace ember::ndarray {
namespace {

using ir::UnaryOp;

template <typename F>
F float_unary(const ir::Unary& op, F x, DType dtype) {
  if (!formula::is_float_unary(op.op)) throw_unsupported(op, dtype);
  return formula::unary(formula::ScalarMath<F>{}, op.op, x);
}

/// The formulas' integer target: the ops that take integers (neg, abs, sign: the op table's
/// FloatOrSigned and Numeric ops) in I, wrapping as C++20 defines (-MIN is MIN); Abs and Sign of
/// an unsigned integer are the identity and 0-or-1. The float-only primitives are never reached
/// (ir::infer refuses those ops for integers) and throw.
template <typename I>
struct IntegerMath {
  using Value = I;
  using Mask = bool;
  ir::Op op;

  /// c converted through int64 (-1 wraps to the largest unsigned value, defined where a
  /// conversion of the double would not be).
  static I constant(double c) { return static_cast<I>(static_cast<int64_t>(c)); }
  static I neg(I x) { return wrapping_sub(I{0}, x); }
  static I abs(I x) { return lt(x, I{0}) ? neg(x) : x; }
  static bool lt(I a, I b) { return std::cmp_less(a, b); }
  static bool gt(I a, I b) { return std::cmp_greater(a, b); }
  static bool le(I a, I b) { return std::cmp_less_equal(a, b); }
  static bool ge(I a, I b) { return std::cmp_greater_equal(a, b); }
  static bool eq(I a, I b) { return std::cmp_equal(a, b); }
  static bool is_nan(I /*x*/) { return false; }
  static I select(bool m, I a, I b) { return m ? a : b; }

  [[noreturn]] I unsupported() const { throw_unsupported(op, dtype_of<I>()); }
  I lowest() const { unsupported(); }
  I add(I, I) const { unsupported(); }
  I sub(I, I) const { unsupported(); }
  I mul(I, I) const { unsupported(); }
  I div(I, I) const { unsupported(); }
  I mul_add(I, I, I) const { unsupported(); }
  I min(I, I) const { unsupported(); }
  I max(I, I) const { unsupported(); }
  I pow(I, I) const { unsupported(); }
  I fmod(I, I) const { unsupported(); }
  I sqrt(I) const { unsupported(); }
  I floor(I) const { unsupported(); }
  I ceil(I) const { unsupported(); }
  I round(I) const { unsupported(); }
  I exp(I) const { unsupported(); }
  I expm1(I) const { unsupported(); }
  I log(I) const { unsupported(); }
  I log1p(I) const { unsupported(); }
  I sin(I) const { unsupported(); }
  I cos(I) const { unsupported(); }
  I tan(I) const { unsupported(); }
  I tanh(I) const { unsupported(); }
  I erf(I) const { unsupported(); }
  I erfc(I) const { unsupported(); }
};

template <typename I>
I int_unary(const ir::Unary& op, I x) {
  if (!formula::is_float_unary(op.op)) throw_unsupported(op, dtype_of<I>());
  return formula::unary(IntegerMath<I>{op}, op.op, x);
}

template <typename T>
T unary_element(const ir::Unary& op, T x) {
  if constexpr (is_float_v<T>) {
    return store<T>(float_unary(op, load(x), dtype_of<T>()));
  } else if constexpr (is_bool_v<T>) {
    if (op.op != UnaryOp::Not) throw_unsupported(op, DType::Bool);
    return formula::bool_not(formula::ScalarMath<float>{}, x);
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
    using F = decltype(load(x));
    return formula::float_predicate(formula::ScalarMath<F>{}, op.op, load(x));
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
