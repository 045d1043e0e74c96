// Rules of the selecting elementwise ops: where and mask_fill.
#include "ir/op_rules.h"

namespace ember::ir::rules {

Outputs infer_rule(const Where&, const Op& op, Inputs inputs) {
  check_arity(op, inputs, 3);
  const TensorMeta& cond = inputs[0];
  const TensorMeta& a = inputs[1];
  const TensorMeta& b = inputs[2];
  check_dtype(op, cond.dtype, kBoolDTypes, "cond");
  check_same_dtype(op, "a", a.dtype, "b", b.dtype);
  std::optional<Shape> shape = try_broadcast(cond.shape, a.shape);
  if (shape) shape = try_broadcast(*shape, b.shape);
  require(shape.has_value(), op, "cond ", cond.shape, ", a ", a.shape, " and b ", b.shape,
          " do not broadcast");
  return {{std::move(*shape), a.dtype}};
}

Outputs infer_rule(const MaskFill& fill, const Op& op, Inputs inputs) {
  check_arity(op, inputs, 2);
  const TensorMeta& x = inputs[0];
  const TensorMeta& mask = inputs[1];
  check_dtype(op, mask.dtype, kBoolDTypes, "mask");
  check_scalar_fits(op, fill.value, x.dtype);
  // The mask may broadcast up to x's shape, but the output stays x's shape.
  require(try_broadcast(x.shape, mask.shape) == x.shape, op, "mask ", mask.shape,
          " does not broadcast to x ", x.shape);
  return {x};
}

}  // namespace ember::ir::rules
