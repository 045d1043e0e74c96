// Rules of the layout ops: reshape, permute, flip, expand, cat.
#include "ir/op_rules.h"

namespace ember::ir::rules {
namespace {

/// Requires each axis in 0..rank-1 and listed once.
void check_distinct_axes(const Op& op, std::span<const int64_t> axes, std::size_t rank) {
  std::vector<bool> seen(rank, false);
  for (int64_t axis : axes) {
    const std::size_t index = check_dim(op, axis, rank, "axis");
    require(!seen[index], op, "axis ", axis, " repeated in ", List{axes});
    seen[index] = true;
  }
}

}  // namespace

Outputs infer_rule(const Reshape& reshape, const Op& op, Inputs inputs) {
  check_arity(op, inputs, 1);
  const TensorMeta& x = inputs[0];
  check_new_shape(op, reshape.shape);
  const int64_t from = x.shape.num_elements();
  const int64_t to = reshape.shape.num_elements();
  require(from == to, op, "cannot reshape ", x.shape, " (", from, " elements) to ", reshape.shape,
          " (", to, " elements)");
  return {{reshape.shape, x.dtype}};
}

Outputs infer_rule(const Permute& permute, const Op& op, Inputs inputs) {
  check_arity(op, inputs, 1);
  const TensorMeta& x = inputs[0];
  require(permute.axes.size() == x.shape.rank(), op, "axes ", List{permute.axes},
          " do not match rank ", x.shape.rank());
  check_distinct_axes(op, permute.axes, x.shape.rank());
  std::vector<int64_t> dims;
  dims.reserve(permute.axes.size());
  for (int64_t axis : permute.axes)
    dims.push_back(x.shape[static_cast<std::size_t>(axis)]);
  return {{Shape(std::move(dims)), x.dtype}};
}

Outputs infer_rule(const Flip& flip, const Op& op, Inputs inputs) {
  check_arity(op, inputs, 1);
  check_distinct_axes(op, flip.axes, inputs[0].shape.rank());
  return {inputs[0]};
}

Outputs infer_rule(const Expand& expand, const Op& op, Inputs inputs) {
  check_arity(op, inputs, 1);
  const TensorMeta& x = inputs[0];
  const Shape& target = expand.shape;
  check_new_shape(op, target);
  require(x.shape.rank() == target.rank(), op, "cannot expand ", x.shape, " to ", target,
          ": ranks ", x.shape.rank(), " and ", target.rank(), " differ");
  for (std::size_t i = 0; i < target.rank(); ++i) {
    require(x.shape[i] == target[i] || x.shape[i] == 1, op, "cannot expand ", x.shape, " to ",
            target, ": dim ", i, " of size ", x.shape[i], " is neither 1 nor ", target[i]);
  }
  return {{target, x.dtype}};
}

Outputs infer_rule(const Cat& cat, const Op& op, Inputs inputs) {
  require(!inputs.empty(), op, "expects at least 1 input, got 0");
  const TensorMeta& first = inputs[0];
  const std::size_t axis = check_dim(op, cat.dim, first.shape.rank());
  int64_t total = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const TensorMeta& input = inputs[i];
    require(input.dtype == first.dtype, op, "input 0 dtype ", first.dtype, " and input ", i,
            " dtype ", input.dtype, " differ");
    require(input.shape.rank() == first.shape.rank(), op, "input 0 ", first.shape, " and input ", i,
            ' ', input.shape, " differ in rank");
    for (std::size_t d = 0; d < input.shape.rank(); ++d) {
      require(d == axis || input.shape[d] == first.shape[d], op, "input 0 ", first.shape,
              " and input ", i, ' ', input.shape, " differ in dim ", d, " (cat along dim ", axis,
              ")");
    }
    require(!__builtin_add_overflow(total, input.shape[axis], &total), op, "the concatenated dim ",
            axis, " overflows int64");
  }
  return {{with_dim(first.shape, axis, total), first.dtype}};
}

}  // namespace ember::ir::rules
