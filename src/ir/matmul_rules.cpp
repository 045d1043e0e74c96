// Rule of matmul: [..., m, k] x [..., k, n] → [..., m, n], batch dims broadcast.
#include "ir/op_rules.h"

namespace ember::ir::rules {
namespace {

/// require, with the message prefixed by both operands: "lhs [2, 3] and rhs [4, 5]: ...".
template <typename... Parts>
void require_operands(bool condition, const Op& op, const Shape& lhs, const Shape& rhs,
                      const Parts&... parts) {
  require(condition, op, "lhs ", lhs, " and rhs ", rhs, ": ", parts...);
}

Shape batch_dims(const Shape& shape) {
  return Shape(std::vector<int64_t>(shape.dims().begin(), shape.dims().end() - 2));
}

}  // namespace

Outputs infer_rule(const Matmul&, const Op& op, Inputs inputs) {
  check_arity(op, inputs, 2);
  const TensorMeta& lhs = inputs[0];
  const TensorMeta& rhs = inputs[1];
  check_same_dtype(op, "lhs", lhs.dtype, "rhs", rhs.dtype);
  check_dtype(op, lhs.dtype, kNumericDTypes);
  const std::size_t rank = lhs.shape.rank();
  require_operands(rank >= 2 && rhs.shape.rank() >= 2, op, lhs.shape, rhs.shape,
                   "expects rank >= 2");
  require_operands(rank == rhs.shape.rank(), op, lhs.shape, rhs.shape, "ranks ", rank, " and ",
                   rhs.shape.rank(), " differ");
  const int64_t lhs_inner = lhs.shape[rank - 1];
  const int64_t rhs_inner = rhs.shape[rank - 2];
  require_operands(lhs_inner == rhs_inner, op, lhs.shape, rhs.shape, "inner dims ", lhs_inner,
                   " != ", rhs_inner);
  const Shape lhs_batch = batch_dims(lhs.shape);
  const Shape rhs_batch = batch_dims(rhs.shape);
  std::optional<Shape> batch = try_broadcast(lhs_batch, rhs_batch);
  require_operands(batch.has_value(), op, lhs.shape, rhs.shape, "batch dims ", lhs_batch, " and ",
                   rhs_batch, " do not broadcast");
  std::vector<int64_t> dims = batch->dims();
  dims.push_back(lhs.shape[rank - 2]);
  dims.push_back(rhs.shape[rank - 1]);
  return {{Shape(std::move(dims)), lhs.dtype}};
}

}  // namespace ember::ir::rules
