// Pooling cases: max pooling (sliding and adaptive) on distinct values 0.37 apart, so that no
// window holds a tie the finite-difference step could flip, with overlapping windows (an input
// that is the maximum of two windows gets both gradients); average pooling with each divisor
// rule (padding counted or not, ceil_mode's clipped window, divisor_override). Tiny shapes.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "gradcheck/gradcheck.h"

namespace ember::test {
namespace {

using ir::PoolOp;

GradCase max_case(const std::string& name, ir::Op op, const Shape& x) {
  return op_case(name, std::move(op), {distinct(name, x)});
}

GradCase avg_case(const std::string& name, ir::Op op, const Shape& x) {
  return op_case(name, std::move(op), {reals(name, x)});
}

std::vector<GradCase> sliding_cases() {
  return {
      max_case("max_pool1d", ir::Pool{PoolOp::Max, {3}, {2}, {1}, {1}}, {2, 2, 7}),
      max_case("max_pool1d/ceil_mode_dilation", ir::Pool{PoolOp::Max, {2}, {2}, {1}, {2}, true},
               {1, 2, 8}),
      max_case("max_pool2d/overlapping", ir::Pool{PoolOp::Max, {3, 2}, {1, 1}, {1, 0}, {1, 1}},
               {1, 2, 4, 3}),
      avg_case("avg_pool1d", ir::Pool{PoolOp::Avg, {3}, {2}, {1}, {1}}, {2, 2, 7}),
      avg_case("avg_pool1d/exclude_pad_ceil_mode",
               ir::Pool{PoolOp::Avg, {3}, {2}, {1}, {1}, true, false}, {1, 2, 8}),
      avg_case("avg_pool2d/divisor_override",
               ir::Pool{PoolOp::Avg, {2, 3}, {2, 2}, {1, 1}, {1, 1}, true, true, 5}, {1, 2, 5, 5}),
      avg_case("avg_pool3d", ir::Pool{PoolOp::Avg, {2, 2, 2}, {1, 2, 1}, {0, 1, 1}, {1, 1, 1}},
               {1, 1, 3, 3, 3}),
  };
}

std::vector<GradCase> adaptive_cases() {
  return {
      avg_case("adaptive_avg_pool1d", ir::AdaptivePool{PoolOp::Avg, {3}}, {2, 2, 7}),
      avg_case("adaptive_avg_pool2d", ir::AdaptivePool{PoolOp::Avg, {3, 2}}, {1, 2, 4, 5}),
      // 3 → 4: windows overlap, so inputs are the maximum of several outputs.
      max_case("adaptive_max_pool1d", ir::AdaptivePool{PoolOp::Max, {4}}, {2, 1, 3}),
      max_case("adaptive_max_pool2d", ir::AdaptivePool{PoolOp::Max, {2, 3}}, {1, 2, 5, 4}),
  };
}

}  // namespace

std::vector<GradCase> pool_grad_cases() {
  return concat({sliding_cases(), adaptive_cases()});
}

}  // namespace ember::test
