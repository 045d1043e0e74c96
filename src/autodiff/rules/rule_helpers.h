// Helpers shared by the backward rules: building a BackwardRule from a function, reading the
// gradient of the output, and the small tensor idioms every family needs (zeros shaped like an
// input, masks as weights, reverse cumulative sums). Everything is written with ember::ops, so
// it runs on every backend.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "autodiff/rule.h"
#include "ember/tensor_ops.h"

namespace ember::autodiff::rules {

using ops::Handles;

/// What a rule keeps from the forward pass.
enum class Needs : uint8_t { Nothing, Inputs, Outputs, InputsAndOutputs };

/// The gradient of the op's first output (the only differentiable output of every op).
inline const TensorHandle& output_grad(const BackwardArgs& args) {
  return args.output_grads[0];
}

/// Runs Body unless the first output got no gradient: then no input gets one either (no op has a
/// differentiable second output; Sort's second output is its indices).
template <BackwardFn Body>
Handles skip_without_grad(const BackwardArgs& args) {
  if (args.output_grads.empty() || !output_grad(args).defined()) {
    return Handles(args.input_metas.size());
  }
  return Body(args);
}

/// The rule running Body, keeping what needs says.
template <BackwardFn Body>
constexpr BackwardRule make_rule(Bound bound, Needs needs) {
  const bool inputs = needs == Needs::Inputs || needs == Needs::InputsAndOutputs;
  const bool outputs = needs == Needs::Outputs || needs == Needs::InputsAndOutputs;
  return BackwardRule{bound, inputs, outputs, &skip_without_grad<Body>};
}
/// A rule of a memory-bound op (recomputed under Balanced checkpointing).
template <BackwardFn Body>
constexpr BackwardRule memory_rule(Needs needs) {
  return make_rule<Body>(Bound::Memory, needs);
}
/// A rule of a compute-bound op (its output is kept).
template <BackwardFn Body>
constexpr BackwardRule compute_rule(Needs needs) {
  return make_rule<Body>(Bound::Compute, needs);
}

/// Zeros of the shape and dtype of forward input `input`, on the gradient's device.
TensorHandle zeros_like_input(const BackwardArgs& args, std::size_t input);
/// Ones of the shape and dtype of forward input `input`, on the gradient's device.
TensorHandle ones_like_input(const BackwardArgs& args, std::size_t input);

/// grad with zeros where mask is true (mask broadcasts to grad's shape).
TensorHandle zero_where(const TensorHandle& grad, const TensorHandle& mask);
/// grad where keep is true, zero elsewhere (keep broadcasts to grad's shape).
TensorHandle keep_where(const TensorHandle& grad, const TensorHandle& keep);
/// The Bool tensor mask as 0/1 values of dtype.
TensorHandle as_weights(const TensorHandle& mask, DType dtype);

/// Sums from the end: out[i] = x[i] + x[i+1] + ... along dim.
TensorHandle reverse_cumsum(const TensorHandle& x, int64_t dim);
/// The product of the elements before each one along dim (1 for the first). Exact with zeros:
/// no division.
TensorHandle exclusive_cumprod(const TensorHandle& x, int64_t dim);
/// 0, 1, ..., n-1 along dim of x (n = x's size there), broadcast to x's shape, as I64.
TensorHandle positions_along(const TensorHandle& x, int64_t dim);

/// The Python slices that select exactly the normalized ranges of an ir Slice/SliceAssign.
std::vector<Slice> python_slices(const std::vector<ir::SliceRange>& ranges);

}  // namespace ember::autodiff::rules
