// Rules of the elementwise ops: unary, binary (tensor and scalar), compare, cast.
#include <array>
#include <cmath>

#include "core/recycled_shapes.h"
#include "ir/op_rules.h"

namespace ember::ir::rules {
namespace {

/// Entry op of table (indexed by the enum, from the op table); the first entry stands for a value
/// past the table (an op decoded from untrusted bytes), which ir then refuses as unknown.
template <typename Enum, typename Table>
const auto& entry(const Table& table, Enum op) {
  const auto index = static_cast<std::size_t>(op);
  return table[index < table.size() ? index : 0];
}

const std::array kUnaryDTypes = {
#define EMBER_UNARY_OP(Enumerator, name, dtypes, ...) DTypeSet::dtypes,
#include "ember/ops.def"
};
const std::array kUnaryResults = {
#define EMBER_UNARY_OP(Enumerator, name, dtypes, result, ...) ResultDType::result,
#include "ember/ops.def"
};
const std::array kBinaryDTypes = {
#define EMBER_BINARY_OP(Enumerator, name, scalar_name, dtypes, ...) DTypeSet::dtypes,
#include "ember/ops.def"
};

void check_known(const Op& op, std::size_t index, std::size_t count) {
  require(index < count, op, "unknown op ", index, " (", count, " ops of its kind)");
}

const DTypeClass& unary_dtypes(UnaryOp op) {
  return dtype_class(entry(kUnaryDTypes, op));
}

const DTypeClass& binary_dtypes(BinaryOp op) {
  return dtype_class(entry(kBinaryDTypes, op));
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
  check_known(op, static_cast<std::size_t>(unary.op), kOpCount<UnaryOp>);
  const TensorMeta& x = inputs[0];
  check_dtype(op, x.dtype, unary_dtypes(unary.op));
  const bool predicate = entry(kUnaryResults, unary.op) == ResultDType::Bool;
  return one_output({detail::recycled_copy(x.shape), predicate ? DType::Bool : x.dtype});
}

Outputs infer_rule(const Binary& binary, const Op& op, Inputs inputs) {
  check_arity(op, inputs, 2);
  check_known(op, static_cast<std::size_t>(binary.op), kOpCount<BinaryOp>);
  const TensorMeta& lhs = inputs[0];
  const TensorMeta& rhs = inputs[1];
  check_same_dtype(op, "lhs", lhs.dtype, "rhs", rhs.dtype);
  check_dtype(op, lhs.dtype, binary_dtypes(binary.op));
  return one_output({broadcast(op, "lhs", lhs.shape, "rhs", rhs.shape), lhs.dtype});
}

Outputs infer_rule(const BinaryScalar& binary, const Op& op, Inputs inputs) {
  check_arity(op, inputs, 1);
  check_known(op, static_cast<std::size_t>(binary.op), kOpCount<BinaryOp>);
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
