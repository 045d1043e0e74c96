// Rules of the indexing ops: select, select_assign, gather, scatter. Index values are data, so
// their range is checked by the backends; these rules check metadata only.
#include "ir/op_rules.h"

namespace ember::ir::rules {
namespace {

/// x's shape with dim replaced by the length of the rank-1 int indices.
Shape selected_shape(const Op& op, const TensorMeta& x, const TensorMeta& indices, int64_t dim) {
  check_dtype(op, indices.dtype, kIntDTypes, "indices");
  require(indices.shape.rank() == 1, op, "indices: expects rank 1, got shape ", indices.shape);
  const std::size_t axis = check_dim(op, dim, x.shape.rank());
  return with_dim(x.shape, axis, indices.shape[0]);
}

/// PyTorch's gather/scatter rule: int indices of x's rank, no larger than x off dim.
void check_gather_indices(const Op& op, const TensorMeta& x, const TensorMeta& indices,
                          int64_t dim) {
  check_dtype(op, indices.dtype, kIntDTypes, "indices");
  require(indices.shape.rank() == x.shape.rank(), op, "indices ", indices.shape, " and x ", x.shape,
          " differ in rank");
  const std::size_t axis = check_dim(op, dim, x.shape.rank());
  for (std::size_t d = 0; d < x.shape.rank(); ++d) {
    require(d == axis || indices.shape[d] <= x.shape[d], op, "indices ", indices.shape,
            " exceed x ", x.shape, " in dim ", d);
  }
}

}  // namespace

Outputs infer_rule(const Select& select, const Op& op, Inputs inputs) {
  check_arity(op, inputs, 2);
  const TensorMeta& x = inputs[0];
  return {{selected_shape(op, x, inputs[1], select.dim), x.dtype}};
}

Outputs infer_rule(const SelectAssign& assign, const Op& op, Inputs inputs) {
  check_arity(op, inputs, 3);
  const TensorMeta& x = inputs[0];
  const TensorMeta& values = inputs[2];
  check_same_dtype(op, "x", x.dtype, "values", values.dtype);
  const Shape selection = selected_shape(op, x, inputs[1], assign.dim);
  check_same_shape(op, "values", values.shape, "selection", selection);
  return {x};
}

Outputs infer_rule(const Gather& gather, const Op& op, Inputs inputs) {
  check_arity(op, inputs, 2);
  const TensorMeta& x = inputs[0];
  const TensorMeta& indices = inputs[1];
  check_gather_indices(op, x, indices, gather.dim);
  return {{indices.shape, x.dtype}};
}

Outputs infer_rule(const Scatter& scatter, const Op& op, Inputs inputs) {
  check_arity(op, inputs, 3);
  const TensorMeta& x = inputs[0];
  const TensorMeta& indices = inputs[1];
  const TensorMeta& values = inputs[2];
  check_same_dtype(op, "x", x.dtype, "values", values.dtype);
  check_gather_indices(op, x, indices, scatter.dim);
  check_same_shape(op, "values", values.shape, "indices", indices.shape);
  return {x};
}

}  // namespace ember::ir::rules
