// Backward rules of the layout ops. Each moves the gradient back to where the input's elements
// came from: the inverse reshape or permutation, the same flip, a sum over expanded dims, the
// slice written into zeros. All memory-bound except cat (compute-bound, as a copy of every
// input). None keeps a tensor: the input's shape is enough.
#include <cstddef>
#include <cstdint>
#include <variant>
#include <vector>

#include "autodiff/rules/family_rules.h"
#include "autodiff/rules/rule_helpers.h"

namespace ember::autodiff::rules {
namespace {

const Shape& input_shape(const BackwardArgs& args) {
  return args.input_metas[0].shape;
}

Handles reshape_backward(const BackwardArgs& args) {
  return {ops::reshape(output_grad(args), input_shape(args).dims())};
}
/// Output dim i is input dim axes[i], so input dim axes[i] is output dim i.
Handles permute_backward(const BackwardArgs& args) {
  const std::vector<int64_t>& axes = std::get<ir::Permute>(args.op).axes;
  ops::Dims inverse(axes.size());
  for (std::size_t i = 0; i < axes.size(); ++i)
    inverse[static_cast<std::size_t>(axes[i])] = static_cast<int64_t>(i);
  return {ops::permute(output_grad(args), inverse)};
}
/// A flip is its own inverse.
Handles flip_backward(const BackwardArgs& args) {
  return {ops::flip(output_grad(args), std::get<ir::Flip>(args.op).axes)};
}
Handles expand_backward(const BackwardArgs& args) {
  return {reduce_to_shape(output_grad(args), input_shape(args))};
}
Handles slice_backward(const BackwardArgs& args) {
  const std::vector<Slice> slices = python_slices(std::get<ir::Slice>(args.op).ranges);
  return {ops::slice_assign(zeros_like_input(args, 0), slices, output_grad(args))};
}
/// inputs (x, values): x keeps the gradient outside the slice, values get the slice.
Handles slice_assign_backward(const BackwardArgs& args) {
  const std::vector<Slice> slices = python_slices(std::get<ir::SliceAssign>(args.op).ranges);
  const TensorHandle& g = output_grad(args);
  return {ops::slice_assign(g, slices, zeros_like_input(args, 1)), ops::slice(g, slices)};
}
/// Each input gets its own stretch of the gradient along dim.
Handles cat_backward(const BackwardArgs& args) {
  const int64_t dim = std::get<ir::Cat>(args.op).dim;
  const auto at = static_cast<std::size_t>(dim);
  Handles grads;
  int64_t start = 0;
  for (const ir::TensorMeta& meta : args.input_metas) {
    grads.push_back(ops::narrow(output_grad(args), dim, start, meta.shape[at]));
    start += meta.shape[at];
  }
  return grads;
}

constexpr BackwardRule kReshape = memory_rule<reshape_backward>(Needs::Nothing);
constexpr BackwardRule kPermute = memory_rule<permute_backward>(Needs::Nothing);
constexpr BackwardRule kFlip = memory_rule<flip_backward>(Needs::Nothing);
constexpr BackwardRule kExpand = memory_rule<expand_backward>(Needs::Nothing);
constexpr BackwardRule kSlice = memory_rule<slice_backward>(Needs::Nothing);
constexpr BackwardRule kSliceAssign = memory_rule<slice_assign_backward>(Needs::Nothing);
constexpr BackwardRule kCat = compute_rule<cat_backward>(Needs::Nothing);

}  // namespace

const BackwardRule* rule_for(const ir::Reshape&) {
  return &kReshape;
}
const BackwardRule* rule_for(const ir::Permute&) {
  return &kPermute;
}
const BackwardRule* rule_for(const ir::Flip&) {
  return &kFlip;
}
const BackwardRule* rule_for(const ir::Expand&) {
  return &kExpand;
}
const BackwardRule* rule_for(const ir::Slice&) {
  return &kSlice;
}
const BackwardRule* rule_for(const ir::SliceAssign&) {
  return &kSliceAssign;
}
const BackwardRule* rule_for(const ir::Cat&) {
  return &kCat;
}

}  // namespace ember::autodiff::rules
