// Rules of the reductions: sum, mean, prod, max, min, argmax, argmin, var, any, all.
#include <array>

#include "ir/op_rules.h"

namespace ember::ir::rules {
namespace {

// The op table's columns (ember/ops.def), indexed by the enum.
const std::array kReduceDTypes = {
#define EMBER_REDUCE_OP(Enumerator, name, dtypes, result) DTypeSet::dtypes,
#include "ember/ops.def"
};
const std::array kReduceResults = {
#define EMBER_REDUCE_OP(Enumerator, name, dtypes, result) ResultDType::result,
#include "ember/ops.def"
};

/// Reductions with no value for zero elements (sum, prod, any and all have their identity).
bool needs_elements(ReduceOp op) {
  return op == ReduceOp::Mean || op == ReduceOp::Max || op == ReduceOp::Min ||
         op == ReduceOp::ArgMax || op == ReduceOp::ArgMin || op == ReduceOp::Var;
}

DType reduce_output_dtype(const Reduce& reduce, DType x) {
  switch (kReduceResults[static_cast<std::size_t>(reduce.op)]) {
    case ResultDType::Same:
      return x;
    case ResultDType::Bool:
      return DType::Bool;
    case ResultDType::Index:
      return reduce.index_dtype;
  }
  return x;  // not an enumerator
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
  require(static_cast<std::size_t>(reduce.op) < kOpCount<ReduceOp>, op, "unknown reduction ",
          static_cast<int>(reduce.op));
  const TensorMeta& x = inputs[0];
  check_dtype(op, x.dtype, dtype_class(kReduceDTypes[static_cast<std::size_t>(reduce.op)]));
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
