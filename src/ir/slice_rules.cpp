// Rules of slice and slice_assign: one normalized range per dim.
#include "ir/op_rules.h"
#include "ir/slice_range.h"

namespace ember::ir::rules {
namespace {

/// The shape of x sliced by ranges; every range normalized (the Tensor API resolves negative
/// bounds and steps before building the op).
Shape sliced_shape(const Op& op, const Shape& x, std::span<const SliceRange> ranges) {
  require(ranges.size() == x.rank(), op, ranges.size(), " ranges for rank ", x.rank(), " (shape ",
          x, ")");
  std::vector<int64_t> dims(x.rank());
  for (std::size_t i = 0; i < dims.size(); ++i) {
    const SliceRange& range = ranges[i];
    require(range.step >= 1, op, "dim ", i, ": step ", range.step, " must be >= 1");
    require(0 <= range.start && range.start <= range.end && range.end <= x[i], op, "dim ", i,
            ": range ", range.start, "..", range.end, " is not within 0..", x[i]);
    dims[i] = slice_length(range);
  }
  return Shape(std::move(dims));
}

}  // namespace

Outputs infer_rule(const Slice& slice, const Op& op, Inputs inputs) {
  check_arity(op, inputs, 1);
  const TensorMeta& x = inputs[0];
  return {{sliced_shape(op, x.shape, slice.ranges), x.dtype}};
}

Outputs infer_rule(const SliceAssign& assign, const Op& op, Inputs inputs) {
  check_arity(op, inputs, 2);
  const TensorMeta& x = inputs[0];
  const TensorMeta& values = inputs[1];
  check_same_dtype(op, "x", x.dtype, "values", values.dtype);
  check_same_shape(op, "values", values.shape, "slice", sliced_shape(op, x.shape, assign.ranges));
  return {x};
}

}  // namespace ember::ir::rules
