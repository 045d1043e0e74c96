// Reductions: over the whole tensor (shape [1]) or along one dim (kept with size 1).
#include <optional>

#include "ember/tensor_ops.h"
#include "tensor/check.h"
#include "tensor/dispatch.h"

namespace ember::ops {
namespace {

using ir::ReduceOp;
using tensor::KindRule;

TensorHandle reduce(const TensorHandle& x, ReduceOp op, KindRule rule, std::string_view name,
                    std::optional<int64_t> dim = std::nullopt, int64_t correction = 0) {
  tensor::require(x, rule, name);
  ir::Reduce reduction{op, std::nullopt, correction};
  if (dim) reduction.dim = tensor::normalize_dim(*dim, x.rank(), name);
  if (op == ReduceOp::ArgMax || op == ReduceOp::ArgMin)
    reduction.index_dtype = tensor::index_dtype(x);
  return tensor::run_one(reduction, {x});
}

}  // namespace

TensorHandle sum(const TensorHandle& x) {
  return reduce(x, ReduceOp::Sum, KindRule::Numeric, "sum");
}
TensorHandle sum_dim(const TensorHandle& x, int64_t dim) {
  return reduce(x, ReduceOp::Sum, KindRule::Numeric, "sum_dim", dim);
}
TensorHandle mean(const TensorHandle& x) {
  return reduce(x, ReduceOp::Mean, KindRule::Numeric, "mean");
}
TensorHandle mean_dim(const TensorHandle& x, int64_t dim) {
  return reduce(x, ReduceOp::Mean, KindRule::Numeric, "mean_dim", dim);
}
TensorHandle prod(const TensorHandle& x) {
  return reduce(x, ReduceOp::Prod, KindRule::Numeric, "prod");
}
TensorHandle prod_dim(const TensorHandle& x, int64_t dim) {
  return reduce(x, ReduceOp::Prod, KindRule::Numeric, "prod_dim", dim);
}
TensorHandle max(const TensorHandle& x) {
  return reduce(x, ReduceOp::Max, KindRule::Any, "max");
}
TensorHandle max_dim(const TensorHandle& x, int64_t dim) {
  return reduce(x, ReduceOp::Max, KindRule::Any, "max_dim", dim);
}
TensorHandle min(const TensorHandle& x) {
  return reduce(x, ReduceOp::Min, KindRule::Any, "min");
}
TensorHandle min_dim(const TensorHandle& x, int64_t dim) {
  return reduce(x, ReduceOp::Min, KindRule::Any, "min_dim", dim);
}
TensorHandle argmax(const TensorHandle& x, int64_t dim) {
  return reduce(x, ReduceOp::ArgMax, KindRule::Numeric, "argmax", dim);
}
TensorHandle argmin(const TensorHandle& x, int64_t dim) {
  return reduce(x, ReduceOp::ArgMin, KindRule::Numeric, "argmin", dim);
}
TensorHandle var(const TensorHandle& x, int64_t dim, int64_t correction) {
  if (correction < 0) tensor::fail("var", "correction ", correction, " must be >= 0");
  return reduce(x, ReduceOp::Var, KindRule::Float, "var", dim, correction);
}
TensorHandle any(const TensorHandle& x) {
  return reduce(x, ReduceOp::Any, KindRule::Any, "any");
}
TensorHandle any_dim(const TensorHandle& x, int64_t dim) {
  return reduce(x, ReduceOp::Any, KindRule::Any, "any_dim", dim);
}
TensorHandle all(const TensorHandle& x) {
  return reduce(x, ReduceOp::All, KindRule::Any, "all");
}
TensorHandle all_dim(const TensorHandle& x, int64_t dim) {
  return reduce(x, ReduceOp::All, KindRule::Any, "all_dim", dim);
}

}  // namespace ember::ops
