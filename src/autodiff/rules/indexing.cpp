// Backward rules of the indexing ops (compute-bound). Reading at indices (select, gather) sends
// the gradient back by adding it at the same indices (select_assign, scatter into zeros); adding
// at indices passes the gradient to x unchanged and reads it at the indices for the values.
// Indices get no gradient.
//
// Note: with IndexUpdate::Assign the overwritten entries of x get no gradient, and each value
// gets the gradient at the entry it was written to. When indices repeat, only one value per entry
// survives the forward pass, yet every value gets that entry's gradient, as in PyTorch's
// index_copy and scatter.
#include <cstdint>
#include <variant>

#include "autodiff/rules/family_rules.h"
#include "autodiff/rules/rule_helpers.h"

namespace ember::autodiff::rules {
namespace {

using ir::IndexUpdate;

template <typename Op>
int64_t dim_of(const BackwardArgs& args) {
  return std::get<Op>(args.op).dim;
}
const TensorHandle& indices(const BackwardArgs& args) {
  return args.inputs[1];
}

/// The gradient of x after an indexed write: whole for Add; zero where Assign overwrote x
/// (found by adding ones at the indices into zeros).
template <typename Op, auto write>
TensorHandle written_x_grad(const BackwardArgs& args) {
  const TensorHandle& g = output_grad(args);
  if (std::get<Op>(args.op).update == IndexUpdate::Add) return g;
  const TensorHandle hits =
      write(zeros_like_input(args, 0), dim_of<Op>(args), indices(args), ones_like_input(args, 2));
  return zero_where(g, ops::greater_elem(hits, 0));
}

/// inputs (x, indices).
Handles select_backward(const BackwardArgs& args) {
  return {ops::select_assign(zeros_like_input(args, 0), dim_of<ir::Select>(args), indices(args),
                             output_grad(args)),
          TensorHandle()};
}
/// inputs (x, indices, values).
Handles select_assign_backward(const BackwardArgs& args) {
  return {written_x_grad<ir::SelectAssign, ops::select_assign>(args), TensorHandle(),
          ops::select(output_grad(args), dim_of<ir::SelectAssign>(args), indices(args))};
}
/// inputs (x, indices).
Handles gather_backward(const BackwardArgs& args) {
  return {ops::scatter(zeros_like_input(args, 0), dim_of<ir::Gather>(args), indices(args),
                       output_grad(args)),
          TensorHandle()};
}
/// inputs (x, indices, values).
Handles scatter_backward(const BackwardArgs& args) {
  return {written_x_grad<ir::Scatter, ops::scatter>(args), TensorHandle(),
          ops::gather(output_grad(args), dim_of<ir::Scatter>(args), indices(args))};
}

constexpr BackwardRule kSelect = compute_rule<select_backward>(Needs::Inputs);
constexpr BackwardRule kSelectAssign = compute_rule<select_assign_backward>(Needs::Inputs);
constexpr BackwardRule kGather = compute_rule<gather_backward>(Needs::Inputs);
constexpr BackwardRule kScatter = compute_rule<scatter_backward>(Needs::Inputs);

}  // namespace

const BackwardRule* rule_for(const ir::Select&) {
  return &kSelect;
}
const BackwardRule* rule_for(const ir::SelectAssign&) {
  return &kSelectAssign;
}
const BackwardRule* rule_for(const ir::Gather&) {
  return &kGather;
}
const BackwardRule* rule_for(const ir::Scatter&) {
  return &kScatter;
}

}  // namespace ember::autodiff::rules
