// Backward rule of the convolutions (compute-bound; x and the weight are kept). For
// out = conv(x, weight) + bias with output gradient g:
//   dx      = the convolution of g in the other direction, same weight and geometry (a
//             transposed convolution is the adjoint of the convolution), sized to x;
//   dweight = ConvWeightGrad(x, g);
//   dbias   = g summed over the samples and the spatial dims.
// ConvWeightGrad itself has no rule: gradients are first order only.
// Not ember::ops (rule.h): ConvWeightGrad and the adjoint convolution are gradient ops with no
// public function (a user never calls them), so the rule runs them through tensor::run_one, the
// dispatch that every ops:: function ends in.
#include <cstddef>
#include <cstdint>
#include <variant>
#include <vector>

#include "autodiff/rules/family_rules.h"
#include "autodiff/rules/rule_helpers.h"
#include "tensor/for_autodiff.h"

namespace ember::autodiff::rules {
namespace {

/// The geometry of the convolution in the other direction, whose output covers x. A forward
/// convolution's output size floors away up to stride - 1 trailing inputs: the transposed one
/// gets them back as output_padding (always < stride, so valid).
ir::ConvGeometry adjoint_geometry(const ir::ConvGeometry& g, const Shape& x, const Shape& weight) {
  ir::ConvGeometry adjoint = g;
  adjoint.transposed = !g.transposed;
  adjoint.output_padding.assign(g.stride.size(), 0);
  if (g.transposed) return adjoint;
  for (std::size_t i = 0; i < g.stride.size(); ++i) {
    const int64_t dilated_kernel = g.dilation[i] * (weight[i + 2] - 1) + 1;
    adjoint.output_padding[i] = (x[i + 2] + 2 * g.padding[i] - dilated_kernel) % g.stride[i];
  }
  return adjoint;
}

/// t without its trailing spatial positions past shape's: the adjoint of a transposed
/// convolution whose output_padding reaches stride or more covers more than x.
TensorHandle cropped_to(const TensorHandle& t, const Shape& shape) {
  if (t.shape() == shape) return t;
  std::vector<Slice> slices{Slice::all(), Slice::all()};
  for (std::size_t i = 2; i < shape.rank(); ++i)
    slices.push_back(Slice::to(shape[i]));
  return ops::slice(t, slices);
}

/// g summed to bias's shape [C_out]: over the samples and every spatial dim.
TensorHandle bias_gradient(const TensorHandle& g) {
  const int64_t channels = g.shape()[1];
  // [C_out, 1, ...]: broadcasting it to g's shape stretches exactly the dims to sum.
  std::vector<int64_t> per_channel(g.rank() - 1, 1);
  per_channel[0] = channels;
  return ops::reshape(reduce_to_shape(g, Shape(std::move(per_channel))), {channels});
}

Handles conv_backward(const BackwardArgs& args) {
  const ir::ConvGeometry& geometry = std::get<ir::Conv>(args.op).geometry;
  const TensorHandle& g = output_grad(args);
  const TensorHandle& x = args.inputs[0];
  const TensorHandle& weight = args.inputs[1];
  const Shape& x_shape = args.input_metas[0].shape;
  const Shape& weight_shape = args.input_metas[1].shape;
  const ir::Conv adjoint{adjoint_geometry(geometry, x_shape, weight_shape)};
  Handles grads{cropped_to(tensor::run_one(adjoint, {g, weight}), x_shape),
                tensor::run_one(ir::ConvWeightGrad{geometry, weight_shape}, {x, g})};
  if (args.input_metas.size() > 2) grads.push_back(bias_gradient(g));
  return grads;
}

constexpr BackwardRule kConv = compute_rule<conv_backward>(Needs::Inputs);

}  // namespace

const BackwardRule* rule_for(const ir::Conv&) {
  return &kConv;
}
const BackwardRule* rule_for(const ir::ConvWeightGrad&) {
  return nullptr;
}

}  // namespace ember::autodiff::rules
