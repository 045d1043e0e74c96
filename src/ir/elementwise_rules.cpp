// Rules of the elementwise ops: unary, binary (tensor and scalar), compare, cast.
#include <cmath>

#include "core/recycled_shapes.h"
#include "ir/op_rules.h"

namespace ember::ir::rules {
namespace {

const DTypeClass& unary_dtypes(UnaryOp op) {
  switch (op) {
    case UnaryOp::Neg:
      return kFloatOrSignedDTypes;
    case UnaryOp::Abs:
    case UnaryOp::Sign:
      return kNumericDTypes;
    case UnaryOp::Not:
      return kBoolDTypes;
    default:  // Exp .. Round, IsNan, IsInf
      return kFloatDTypes;
  }
}

bool is_logical(BinaryOp op) {
  return op == BinaryOp::And || op == BinaryOp::Or || op == BinaryOp::Xor;
}

const DTypeClass& binary_dtypes(BinaryOp op) {
  return is_logical(op) ? kBoolDTypes : kNumericDTypes;
}

/// An integer `x op value` whose value is known now: reject what would divide by zero or need
/// a negative power, instead of leaving each backend to fail on every element.
void check_integer_divisor_or_exponent(const BinaryScalar& binary, const Op& op) {
  // The value as the backends convert it (Float kind truncates toward zero).
  const double value =
      binary.value.kind == Scalar::Kind::Float ? std::trunc(binary.value.f) : binary.value.i;
  const bool divides = binary.op == BinaryOp::Div || binary.op == BinaryOp::Rem;
  require(!divides || value != 0, op, "integer division by zero (value ", binary.value, ")");
  require(binary.op != BinaryOp::Pow || value >= 0, op,
          "an integer base needs a non-negative exponent, got ", binary.value);
}

}  // namespace

Outputs infer_rule(const Unary& unary, const Op& op, Inputs inputs) {
  check_arity(op, inputs, 1);
  const TensorMeta& x = inputs[0];
  check_dtype(op, x.dtype, unary_dtypes(unary.op));
  const bool predicate = unary.op == UnaryOp::IsNan || unary.op == UnaryOp::IsInf;
  return one_output({detail::recycled_copy(x.shape), predicate ? DType::Bool : x.dtype});
}

Outputs infer_rule(const Binary& binary, const Op& op, Inputs inputs) {
  check_arity(op, inputs, 2);
  const TensorMeta& lhs = inputs[0];
  const TensorMeta& rhs = inputs[1];
  check_same_dtype(op, "lhs", lhs.dtype, "rhs", rhs.dtype);
  check_dtype(op, lhs.dtype, binary_dtypes(binary.op));
  return one_output({broadcast(op, "lhs", lhs.shape, "rhs", rhs.shape), lhs.dtype});
}

Outputs infer_rule(const BinaryScalar& binary, const Op& op, Inputs inputs) {
  check_arity(op, inputs, 1);
  const TensorMeta& x = inputs[0];
  check_dtype(op, x.dtype, binary_dtypes(binary.op));
  check_scalar_fits(op, binary.value, x.dtype);
  if (is_int(x.dtype) && !binary.scalar_lhs) check_integer_divisor_or_exponent(binary, op);
  return one_output({detail::recycled_copy(x.shape), x.dtype});
}

Outputs infer_rule(const Compare&, const Op& op, Inputs inputs) {
  check_arity(op, inputs, 2);
  const TensorMeta& lhs = inputs[0];
  const TensorMeta& rhs = inputs[1];
  check_same_dtype(op, "lhs", lhs.dtype, "rhs", rhs.dtype);
  return one_output({broadcast(op, "lhs", lhs.shape, "rhs", rhs.shape), DType::Bool});
}

Outputs infer_rule(const CompareScalar&, const Op& op, Inputs inputs) {
  check_arity(op, inputs, 1);
  // Any value compares with any dtype: x > -1 on u8 is simply true, so no range check.
  return one_output({detail::recycled_copy(inputs[0].shape), DType::Bool});
}

Outputs infer_rule(const Cast& cast, const Op& op, Inputs inputs) {
  check_arity(op, inputs, 1);
  return one_output({detail::recycled_copy(inputs[0].shape), cast.dtype});
}

}  // namespace ember::ir::rules
