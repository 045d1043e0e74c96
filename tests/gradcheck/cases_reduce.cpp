// Reduction cases (whole tensor and per dim) and matmul (a contraction: a sum of products).
#include <optional>

#include "gradcheck/gradcheck.h"

namespace ember::test {
namespace {

using ir::ReduceOp;

GradCase reduce(const std::string& name, ReduceOp op, std::optional<int64_t> dim, TensorData x,
                int64_t correction = 0) {
  return op_case(name, ir::Reduce{op, dim, correction}, {std::move(x)});
}

/// Row 0 has one zero, row 1 two: prod's gradient is then the product of the others (non-zero
/// only at row 0's zero), which a quotient out / x would get wrong.
TensorData with_zeros() {
  return f64({1.5, 0.0, -0.8, 0.0, 1.3, 0.0}, {2, 3});
}

std::vector<GradCase> reduction_cases() {
  return {
      reduce("sum", ReduceOp::Sum, std::nullopt, reals("sum", {2, 3})),
      reduce("sum_dim", ReduceOp::Sum, 1, reals("sum_dim", {2, 3})),
      reduce("mean", ReduceOp::Mean, std::nullopt, reals("mean", {2, 3})),
      reduce("mean_dim", ReduceOp::Mean, 0, reals("mean_dim", {2, 3})),
      reduce("prod", ReduceOp::Prod, std::nullopt, reals("prod", {2, 3})),
      reduce("prod/one_zero", ReduceOp::Prod, std::nullopt, f64({1.5, 0.0, -0.8, 1.2}, {2, 2})),
      reduce("prod/two_zeros", ReduceOp::Prod, std::nullopt, with_zeros()),
      reduce("prod_dim", ReduceOp::Prod, 0, reals("prod_dim", {3, 2})),
      reduce("prod_dim/zeros", ReduceOp::Prod, 1, with_zeros()),
      reduce("prod_dim/single", ReduceOp::Prod, 1, reals("prod_single", {3, 1})),
      reduce("max", ReduceOp::Max, std::nullopt, distinct("max", {2, 3})),
      reduce("max_dim", ReduceOp::Max, 1, distinct("max_dim", {2, 3})),
      reduce("min", ReduceOp::Min, std::nullopt, distinct("min", {2, 3})),
      reduce("min_dim", ReduceOp::Min, 0, distinct("min_dim", {2, 3})),
      reduce("var/unbiased", ReduceOp::Var, 1, reals("var", {2, 3}), 1),
      reduce("var/biased", ReduceOp::Var, 0, reals("var0", {3, 2}), 0),
      reduce("var/whole", ReduceOp::Var, std::nullopt, reals("var_all", {2, 3}), 1),
  };
}

std::vector<GradCase> matmul_cases() {
  return {
      op_case("matmul", ir::Matmul{}, {reals("mm/a", {2, 3}), reals("mm/b", {3, 2})}),
      // Batch dims broadcast both ways: [2, 1] with [1, 3] → [2, 3].
      op_case("matmul/broadcast", ir::Matmul{},
              {reals("mm/bc/a", {2, 1, 2, 3}), reals("mm/bc/b", {1, 3, 3, 2})}),
  };
}

}  // namespace

std::vector<GradCase> reduce_grad_cases() {
  return concat({reduction_cases(), matmul_cases()});
}

}  // namespace ember::test
