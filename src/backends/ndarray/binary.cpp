// Binary arithmetic: tensor op tensor (broadcast) and tensor op scalar.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "backends/ndarray/arithmetic.h"
#include "backends/ndarray/broadcast_map.h"
#include "backends/ndarray/element.h"
#include "backends/ndarray/kernels.h"
#include "ir/formulas.h"
#include "ir/scalar_math.h"

namespace ember::ndarray {
namespace {

using ir::BinaryOp;

template <typename F>
F float_binary(const ir::Op& op, BinaryOp kind, F a, F b, DType dtype) {
  if (!formula::is_float_binary(kind)) throw_unsupported(op, dtype);
  return formula::binary(formula::ScalarMath<F>{}, kind, a, b);
}

template <typename I>
I int_binary(const ir::Op& op, BinaryOp kind, I a, I b) {
  switch (kind) {
    case BinaryOp::Add:
      return wrapping_add(a, b);
    case BinaryOp::Sub:
      return wrapping_sub(a, b);
    case BinaryOp::Mul:
      return wrapping_mul(a, b);
    case BinaryOp::Div:
      return integer_div(a, b, op);
    case BinaryOp::Rem:
      return integer_rem(a, b, op);
    case BinaryOp::Pow:
      if (std::cmp_less(b, 0)) {
        throw InvalidArgument("[" + ir::name(op) + "] an integer base needs a non-negative " +
                              "exponent, got " + std::to_string(b));
      }
      return wrapping_pow(a, b);
    case BinaryOp::Maximum:
      return std::max(a, b);
    case BinaryOp::Minimum:
      return std::min(a, b);
    case BinaryOp::And:
    case BinaryOp::Or:
    case BinaryOp::Xor:
      break;
  }
  throw_unsupported(op, dtype_of<I>());
}

/// And, Or and Xor by their formula (formula::logical); the other ops take no Bool values.
bool bool_binary(const ir::Op& op, BinaryOp kind, bool a, bool b) {
  if (formula::is_float_binary(kind)) throw_unsupported(op, DType::Bool);
  return formula::logical(formula::ScalarMath<float>{}, kind, a, b);
}

/// a op b for one element of T; op is the whole op, for error messages.
template <typename T>
T binary_element(const ir::Op& op, BinaryOp kind, T a, T b) {
  if constexpr (is_float_v<T>) {
    return store<T>(float_binary(op, kind, load(a), load(b), dtype_of<T>()));
  } else if constexpr (is_bool_v<T>) {
    return bool_binary(op, kind, a, b);
  } else {
    return int_binary(op, kind, a, b);
  }
}

}  // namespace

TensorData run(const ir::Binary& op, Inputs in, Outputs out) {
  const ir::Op whole{op};
  return broadcast_map(*in[0], *in[1], out[0],
                       [&](auto a, auto b) { return binary_element(whole, op.op, a, b); });
}

TensorData run(const ir::BinaryScalar& op, Inputs in, Outputs out) {
  const TensorData& x = *in[0];
  const ir::Op whole{op};
  TensorData result = zeros_like(out[0]);
  visit_dtype(x.dtype(), [&]<typename T>() {
    const T value = scalar_as<T>(op.value);
    const auto src = x.as<T>();
    auto dst = result.as_mut<T>();
    for (std::size_t i = 0; i < src.size(); ++i) {
      dst[i] = op.scalar_lhs ? binary_element(whole, op.op, value, src[i])
                             : binary_element(whole, op.op, src[i], value);
    }
  });
  return result;
}

}  // namespace ember::ndarray
