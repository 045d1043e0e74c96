// Rules of the ops running along one dim: sort and the cumulative ops.
#include "ir/op_rules.h"

namespace ember::ir::rules {

Outputs infer_rule(const Sort& sort, const Op& op, Inputs inputs) {
  check_arity(op, inputs, 1);
  const TensorMeta& x = inputs[0];
  // Every dtype (numeric and bool) is ordered, so only the dim and the index dtype are checked.
  const std::size_t axis = check_dim(op, sort.dim, x.shape.rank());
  check_index_dtype(op, sort.index_dtype, x.shape[axis]);
  return {x, {x.shape, sort.index_dtype}};
}

Outputs infer_rule(const Cumulative& cumulative, const Op& op, Inputs inputs) {
  check_arity(op, inputs, 1);
  const TensorMeta& x = inputs[0];
  check_dtype(op, x.dtype, kNumericDTypes);
  check_dim(op, cumulative.dim, x.shape.rank());
  return {x};
}

}  // namespace ember::ir::rules
