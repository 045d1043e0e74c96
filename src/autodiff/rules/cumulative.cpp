// Backward rules of the cumulative ops (compute-bound), along dim:
// - cumsum: out[j] sums x[i] for i <= j, so x[i] gets the sum of g[j] for j >= i.
// - cumprod: x[i] gets sum over j >= i of g[j] * (product of x[k], k <= j, k != i).
// - cummax / cummin: out[j] is one element of x, so x[i] gets the g[j] of every j it is the
//   running extreme for.
//
// Note (cumprod with zeros): the quotient form sum(g * out)[j >= i] / x[i] is wrong where x[i] =
// 0. Splitting each line at its first zero z keeps it exact: before z the quotient form holds
// (x[i] != 0 and out is 0 from z on), at z the products skip x[z] (cumprod with x[z] taken as 1),
// and after z every product includes x[z] = 0.
// Note (cummax ties): an element equal to the running extreme takes it over, as PyTorch's cummax
// indices do, so on a tie the gradient goes to the later element.
#include <cstdint>
#include <variant>

#include "autodiff/rules/family_rules.h"
#include "autodiff/rules/rule_helpers.h"

namespace ember::autodiff::rules {
namespace {

using ir::CumulativeOp;

int64_t dim_of(const BackwardArgs& args) {
  return std::get<ir::Cumulative>(args.op).dim;
}

Handles cumsum_backward(const BackwardArgs& args) {
  return {reverse_cumsum(output_grad(args), dim_of(args))};
}

Handles cumprod_backward(const BackwardArgs& args) {
  const TensorHandle& x = args.inputs[0];
  const TensorHandle& g = output_grad(args);
  const int64_t dim = dim_of(args);
  const TensorHandle is_zero = ops::equal_elem(x, 0);
  const TensorHandle zeros_so_far = ops::cumsum(as_weights(is_zero, x.dtype()), dim);
  const TensorHandle before_first_zero = ops::equal_elem(zeros_so_far, 0);
  const TensorHandle first_zero = ops::bool_and(is_zero, ops::equal_elem(zeros_so_far, 1));
  const TensorHandle x_skipping_first_zero = ops::mask_fill(x, first_zero, 1);
  const TensorHandle before =
      ops::div(reverse_cumsum(ops::mul(g, args.outputs[0]), dim), x_skipping_first_zero);
  const TensorHandle at =
      reverse_cumsum(ops::mul(g, ops::cumprod(x_skipping_first_zero, dim)), dim);
  return {ops::where(before_first_zero, before, keep_where(at, first_zero))};
}

/// Where each out[j] came from: the last i <= j at which x[i] equals out[i] (a new or tied
/// running extreme), i.e. the running max of those positions.
Handles cumulative_extreme_backward(const BackwardArgs& args) {
  const TensorHandle& x = args.inputs[0];
  const int64_t dim = dim_of(args);
  const TensorHandle positions = positions_along(x, dim);
  const TensorHandle takes_over = ops::equal(x, args.outputs[0]);
  const TensorHandle source =
      ops::cummax(ops::where(takes_over, positions, ops::full_like(positions, 0)), dim);
  return {ops::scatter(zeros_like_input(args, 0), dim, source, output_grad(args))};
}

constexpr BackwardRule kCumsum = compute_rule<cumsum_backward>(Needs::Nothing);
constexpr BackwardRule kCumprod = compute_rule<cumprod_backward>(Needs::InputsAndOutputs);
constexpr BackwardRule kCumExtreme =
    compute_rule<cumulative_extreme_backward>(Needs::InputsAndOutputs);

}  // namespace

const BackwardRule* rule_for(const ir::Cumulative& op) {
  switch (op.op) {
    case CumulativeOp::Sum:
      return &kCumsum;
    case CumulativeOp::Prod:
      return &kCumprod;
    case CumulativeOp::Max:
    case CumulativeOp::Min:
      return &kCumExtreme;
  }
  return nullptr;
}

}  // namespace ember::autodiff::rules
