// Indexing cases (select, select_assign, gather, scatter: Add and Assign, repeated indices),
// sort (both directions, a long line) and the cumulative ops (cumprod with zeros included, a
// long cumsum).
#include "gradcheck/gradcheck.h"

namespace ember::test {
namespace {

using ir::CumulativeOp;
using ir::IndexUpdate;

std::vector<GradCase> index_cases() {
  return {
      // Index 3 read twice: its gradient is the sum of both reads.
      op_case("select", ir::Select{1}, {reals("select", {3, 4}), i64({3, 0, 3}, {3})}),
      op_case("select_assign/add", ir::SelectAssign{0, IndexUpdate::Add},
              {reals("sa/x", {3, 4}), i64({2, 0, 2}, {3}), reals("sa/v", {3, 4})}),
      op_case("select_assign/assign", ir::SelectAssign{1, IndexUpdate::Assign},
              {reals("sas/x", {3, 4}), i64({3, 1}, {2}), reals("sas/v", {3, 2})}),
      op_case("gather", ir::Gather{1},
              {reals("gather", {2, 3}), i64({2, 0, 2, 1, 1, 1, 0, 0}, {2, 4})}),
      op_case("scatter/add", ir::Scatter{1, IndexUpdate::Add},
              {reals("sc/x", {2, 3}), i64({2, 0, 2, 1, 1, 0}, {2, 3}), reals("sc/v", {2, 3})}),
      op_case("scatter/assign", ir::Scatter{1, IndexUpdate::Assign},
              {reals("scs/x", {2, 4}), i64({3, 0, 1, 2}, {2, 2}), reals("scs/v", {2, 2})}),
  };
}

std::vector<GradCase> order_cases() {
  // Rows: one zero in the middle, two zeros, a zero first; columns mix them the same way.
  const TensorData zeros =
      f64({1.5, 0.0, -0.8, 1.2, 0.7, -1.1, 0.0, 0.0, 0.0, 1.3, 0.9, -1.4}, {3, 4});
  return {
      op_case("sort", ir::Sort{1}, {distinct("sort", {2, 4})}),
      op_case("sort/descending", ir::Sort{0, true}, {distinct("sort_desc", {3, 2})}),
      op_case("cumsum", ir::Cumulative{CumulativeOp::Sum, 1}, {reals("cumsum", {2, 3})}),
      // Lines past the GPU kernels' one-workgroup sort (2048) and one-invocation scan (4096).
      op_case("sort/long", ir::Sort{1}, {distinct("sort_long", {1, 2500}, -2.0, 0.0016)}),
      op_case("cumsum/long", ir::Cumulative{CumulativeOp::Sum, 0}, {reals("cumsum_long", {4500})}),
      op_case("cumprod", ir::Cumulative{CumulativeOp::Prod, 1}, {reals("cumprod", {2, 4})}),
      op_case("cumprod/zeros", ir::Cumulative{CumulativeOp::Prod, 1}, {zeros}),
      op_case("cumprod/zeros_dim0", ir::Cumulative{CumulativeOp::Prod, 0}, {zeros}),
      op_case("cummax", ir::Cumulative{CumulativeOp::Max, 1}, {distinct("cummax", {2, 5})}),
      op_case("cummin", ir::Cumulative{CumulativeOp::Min, 0}, {distinct("cummin", {4, 2})}),
  };
}

}  // namespace

std::vector<GradCase> indexing_grad_cases() {
  return concat({index_cases(), order_cases()});
}

}  // namespace ember::test
