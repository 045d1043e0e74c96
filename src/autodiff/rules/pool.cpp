// Backward rules of pooling (compute-bound). Max pooling's output came from the input position
// its index names, so the output gradient is added back there: a scatter over the flattened
// spatial dims (the rule keeps the outputs, for the indices). Average pooling's gradient is its own
// op, AvgPoolGrad / AdaptiveAvgPoolGrad, which spreads each output gradient over its window; those
// ops have no rule (first order only). Not ember::ops (rule.h) for those two: they have no
// public function, so the rule runs them through tensor::run_one, the dispatch that every ops::
// function ends in.
#include <cstddef>
#include <cstdint>
#include <variant>

#include "autodiff/rules/family_rules.h"
#include "autodiff/rules/rule_helpers.h"
#include "tensor/for_autodiff.h"

namespace ember::autodiff::rules {
namespace {

/// The dims of shape [N, C, *spatial] as [N, C, prod(spatial)].
ops::Dims flat_planes(const Shape& shape) {
  int64_t plane = 1;
  for (std::size_t i = 2; i < shape.rank(); ++i)
    plane *= shape[i];
  return {shape[0], shape[1], plane};
}

/// Max pooling: each output gradient added at the position of x's plane its index names.
Handles max_pool_backward(const BackwardArgs& args) {
  const TensorHandle& g = output_grad(args);
  const TensorHandle& indices = args.outputs[1];
  const Shape& x_shape = args.input_metas[0].shape;
  const TensorHandle planes = ops::reshape(zeros_like_input(args, 0), flat_planes(x_shape));
  const TensorHandle added = ops::scatter(planes, 2, ops::reshape(indices, flat_planes(g.shape())),
                                          ops::reshape(g, flat_planes(g.shape())));
  return {ops::reshape(added, x_shape.dims())};
}

/// Average pooling Op: its gradient op GradOp, from the pooling and x's shape.
template <typename Op, typename GradOp>
Handles avg_pool_backward(const BackwardArgs& args) {
  const GradOp grad{std::get<Op>(args.op), args.input_metas[0].shape};
  return {tensor::run_one(grad, {output_grad(args)})};
}

constexpr BackwardRule kMaxPool = compute_rule<max_pool_backward>(Needs::Outputs);
constexpr BackwardRule kAvgPool =
    compute_rule<avg_pool_backward<ir::Pool, ir::AvgPoolGrad>>(Needs::Nothing);
constexpr BackwardRule kAdaptiveAvgPool =
    compute_rule<avg_pool_backward<ir::AdaptivePool, ir::AdaptiveAvgPoolGrad>>(Needs::Nothing);

/// The rule of a pooling of kind op: max pooling keeps its indices, average pooling nothing.
const BackwardRule* pool_rule(ir::PoolOp op, const BackwardRule& average) {
  return op == ir::PoolOp::Max ? &kMaxPool : &average;
}

}  // namespace

const BackwardRule* rule_for(const ir::Pool& op) {
  return pool_rule(op.op, kAvgPool);
}
const BackwardRule* rule_for(const ir::AdaptivePool& op) {
  return pool_rule(op.op, kAdaptiveAvgPool);
}
const BackwardRule* rule_for(const ir::AvgPoolGrad&) {
  return nullptr;
}
const BackwardRule* rule_for(const ir::AdaptiveAvgPoolGrad&) {
  return nullptr;
}

}  // namespace ember::autodiff::rules
