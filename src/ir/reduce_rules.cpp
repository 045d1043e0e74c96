// Rules of the reductions: sum, mean, prod, max, min, argmax, argmin, var, any, all.
#include "ir/op_rules.h"

namespace ember::ir::rules {
namespace {

const DTypeClass& reduce_dtypes(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Mean:
    case ReduceOp::Prod:
    case ReduceOp::ArgMax:
    case ReduceOp::ArgMin:
      return kNumericDTypes;
    case ReduceOp::Var:
      return kFloatDTypes;
    default:  // Max, Min (numeric and bool), Any, All
      return kAnyDTypes;
  }
}

/// Reductions with no value for zero elements (sum, prod, any and all have their identity).
bool needs_elements(ReduceOp op) {
  return op == ReduceOp::Mean || op == ReduceOp::Max || op == ReduceOp::Min ||
         op == ReduceOp::ArgMax || op == ReduceOp::ArgMin || op == ReduceOp::Var;
}

DType reduce_output_dtype(const Reduce& reduce, DType x) {
  switch (reduce.op) {
    case ReduceOp::ArgMax:
    case ReduceOp::ArgMin:
      return reduce.index_dtype;
    case ReduceOp::Any:
    case ReduceOp::All:
      return DType::Bool;
    default:
      return x;
  }
}

/// Checks the op's own arguments against the count of elements each output reduces.
void check_reduce_arguments(const Reduce& reduce, const Op& op, const Shape& x, int64_t count) {
  if (needs_elements(reduce.op) && count == 0) {
    if (reduce.dim) fail(op, "cannot reduce an empty dim: dim ", *reduce.dim, " of ", x);
    fail(op, "cannot reduce an empty tensor ", x);
  }
  if (reduce.op == ReduceOp::Var) {
    require(reduce.correction >= 0, op, "correction ", reduce.correction, " must be >= 0");
    require(reduce.correction <= count, op, "correction ", reduce.correction, " exceeds the ",
            count, " elements reduced");
  }
  if (reduce.op == ReduceOp::ArgMax || reduce.op == ReduceOp::ArgMin) {
    check_index_dtype(op, reduce.index_dtype, count);
  }
}

}  // namespace

Outputs infer_rule(const Reduce& reduce, const Op& op, Inputs inputs) {
  check_arity(op, inputs, 1);
  const TensorMeta& x = inputs[0];
  check_dtype(op, x.dtype, reduce_dtypes(reduce.op));
  require(x.shape.rank() >= 1, op, "expects rank >= 1, got shape ", x.shape);
  if (!reduce.dim) {
    check_reduce_arguments(reduce, op, x.shape, x.shape.num_elements());
    return {{Shape{1}, reduce_output_dtype(reduce, x.dtype)}};
  }
  const std::size_t axis = check_dim(op, *reduce.dim, x.shape.rank());
  check_reduce_arguments(reduce, op, x.shape, x.shape[axis]);
  return {{with_dim(x.shape, axis, 1), reduce_output_dtype(reduce, x.dtype)}};
}

}  // namespace ember::ir::rules
