// Backward rules of the reductions (compute-bound), over the whole tensor (output [1]) or along
// one kept dim (output size 1 there); either way the output gradient broadcasts back over x.
// ArgMax, ArgMin, Any and All have Int or Bool outputs: no rule.
//
// Note (ties): max and min share the gradient evenly among all the elements equal to the extreme,
// whole-tensor and per-dim alike, as PyTorch's amax/amin do (PyTorch's max_dim would route it to
// one index instead; an even split is the one choice that is symmetric in the tied inputs).
// Note (zeros): prod's gradient is the product of the other elements, computed as exclusive
// products from both ends, never as out / x, so it is exact when some elements are 0.
#include <cstdint>
#include <optional>
#include <variant>

#include "autodiff/rules/family_rules.h"
#include "autodiff/rules/rule_helpers.h"

namespace ember::autodiff::rules {
namespace {

using ir::ReduceOp;

const ir::Reduce& reduction(const BackwardArgs& args) {
  return std::get<ir::Reduce>(args.op);
}
const TensorHandle& input(const BackwardArgs& args) {
  return args.inputs[0];
}

/// The number of elements reduced into each output element.
int64_t reduced_count(const BackwardArgs& args) {
  const Shape& shape = args.input_metas[0].shape;
  const std::optional<int64_t> dim = reduction(args).dim;
  return dim ? shape[static_cast<std::size_t>(*dim)] : shape.num_elements();
}

/// Sum or mean over what the forward op reduced (its dim, or everything).
TensorHandle sum_like_forward(const BackwardArgs& args, const TensorHandle& x) {
  const std::optional<int64_t> dim = reduction(args).dim;
  return dim ? ops::sum_dim(x, *dim) : ops::sum(x);
}
TensorHandle mean_like_forward(const BackwardArgs& args, const TensorHandle& x) {
  const std::optional<int64_t> dim = reduction(args).dim;
  return dim ? ops::mean_dim(x, *dim) : ops::mean(x);
}

/// grad (the output's shape) copied over every reduced element.
TensorHandle spread(const BackwardArgs& args, const TensorHandle& grad) {
  return ops::expand(grad, args.input_metas[0].shape.dims());
}

/// For each element, the product of the other elements along dim.
TensorHandle products_of_others(const TensorHandle& x, int64_t dim) {
  const TensorHandle before = exclusive_cumprod(x, dim);
  const TensorHandle after = ops::flip(exclusive_cumprod(ops::flip(x, {dim}), dim), {dim});
  return ops::mul(before, after);
}

Handles sum_backward(const BackwardArgs& args) {
  return {spread(args, output_grad(args))};
}
Handles mean_backward(const BackwardArgs& args) {
  const auto count = static_cast<double>(reduced_count(args));
  return {spread(args, ops::div_scalar(output_grad(args), count))};
}
Handles prod_backward(const BackwardArgs& args) {
  const TensorHandle& x = input(args);
  const std::optional<int64_t> dim = reduction(args).dim;
  const TensorHandle others =
      dim ? products_of_others(x, *dim)
          : ops::reshape(products_of_others(ops::reshape(x, {-1}), 0), x.shape().dims());
  return {ops::mul(output_grad(args), others)};
}
/// Max and min: an even share of the gradient to each element equal to the extreme.
Handles extreme_backward(const BackwardArgs& args) {
  const TensorHandle& x = input(args);
  const TensorHandle hits = as_weights(ops::equal(x, args.outputs[0]), x.dtype());
  const TensorHandle shares = ops::div(hits, sum_like_forward(args, hits));
  return {ops::mul(output_grad(args), shares)};
}
/// var = sum((x - mean)^2) / (n - correction), so var' = 2 (x - mean) / (n - correction).
Handles var_backward(const BackwardArgs& args) {
  const TensorHandle& x = input(args);
  const TensorHandle centered = ops::sub(x, mean_like_forward(args, x));
  const auto divisor = static_cast<double>(reduced_count(args) - reduction(args).correction);
  return {ops::mul(output_grad(args), ops::div_scalar(ops::mul_scalar(centered, 2), divisor))};
}

constexpr BackwardRule kSum = compute_rule<sum_backward>(Needs::Nothing);
constexpr BackwardRule kMean = compute_rule<mean_backward>(Needs::Nothing);
constexpr BackwardRule kProd = compute_rule<prod_backward>(Needs::Inputs);
constexpr BackwardRule kExtreme = compute_rule<extreme_backward>(Needs::InputsAndOutputs);
constexpr BackwardRule kVar = compute_rule<var_backward>(Needs::Inputs);

}  // namespace

const BackwardRule* rule_for(const ir::Reduce& op) {
  switch (op.op) {
    case ReduceOp::Sum:
      return &kSum;
    case ReduceOp::Mean:
      return &kMean;
    case ReduceOp::Prod:
      return &kProd;
    case ReduceOp::Max:
    case ReduceOp::Min:
      return &kExtreme;
    case ReduceOp::Var:
      return &kVar;
    case ReduceOp::ArgMax:
    case ReduceOp::ArgMin:
    case ReduceOp::Any:
    case ReduceOp::All:
      return nullptr;
  }
  return nullptr;
}

}  // namespace ember::autodiff::rules
