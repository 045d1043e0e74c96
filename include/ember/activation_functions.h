// Activation functions on Float tensors of any rank, as free functions in ember::activation
// (torch.nn.functional's names and formulas). Each is one op of the device, recorded by autodiff
// like any other; prelu and glu are composites of other ops. See tensor_ops.h ("activations")
// for the exact definitions.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ember/tensor.h"

namespace ember::activation {

/// max(x, 0).
template <std::size_t D>
Tensor<D> relu(const Tensor<D>& x) {
  return Tensor<D>(ops::relu(x.handle()));
}
/// x for x > 0, else negative_slope * x.
template <std::size_t D>
Tensor<D> leaky_relu(const Tensor<D>& x, double negative_slope = 0.01) {
  return Tensor<D>(ops::leaky_relu(x.handle(), negative_slope));
}
/// x for x >= 0, else weight * x; weight holds 1 slope or one per channel (x's dim 1).
template <std::size_t D>
Tensor<D> prelu(const Tensor<D>& x, const Tensor<1>& weight) {
  return Tensor<D>(ops::prelu(x.handle(), weight.handle()));
}
/// x * Phi(x), Phi the standard normal CDF (exact, with erf).
template <std::size_t D>
Tensor<D> gelu(const Tensor<D>& x) {
  return Tensor<D>(ops::gelu(x.handle()));
}
/// GELU's tanh approximation (PyTorch's approximate="tanh").
template <std::size_t D>
Tensor<D> gelu_tanh(const Tensor<D>& x) {
  return Tensor<D>(ops::gelu_tanh(x.handle()));
}
/// 1 / (1 + exp(-x)).
template <std::size_t D>
Tensor<D> sigmoid(const Tensor<D>& x) {
  return Tensor<D>(ops::sigmoid(x.handle()));
}
/// log(sigmoid(x)), stable for large |x|.
template <std::size_t D>
Tensor<D> log_sigmoid(const Tensor<D>& x) {
  return Tensor<D>(ops::log_sigmoid(x.handle()));
}
/// x * sigmoid(x) (swish).
template <std::size_t D>
Tensor<D> silu(const Tensor<D>& x) {
  return Tensor<D>(ops::silu(x.handle()));
}
/// log(1 + exp(beta x)) / beta, linear where beta x > 20; beta finite and non-zero.
template <std::size_t D>
Tensor<D> softplus(const Tensor<D>& x, double beta = 1.0) {
  return Tensor<D>(ops::softplus(x.handle(), beta));
}
/// x * tanh(softplus(x)).
template <std::size_t D>
Tensor<D> mish(const Tensor<D>& x) {
  return Tensor<D>(ops::mish(x.handle()));
}
/// x for x > 0, else alpha * (exp(x) - 1).
template <std::size_t D>
Tensor<D> elu(const Tensor<D>& x, double alpha = 1.0) {
  return Tensor<D>(ops::elu(x.handle(), alpha));
}
/// 1.0507 * elu(x, 1.6733) (PyTorch's exact constants).
template <std::size_t D>
Tensor<D> selu(const Tensor<D>& x) {
  return Tensor<D>(ops::selu(x.handle()));
}
/// x for x > 0, else alpha * (exp(x / alpha) - 1); alpha non-zero.
template <std::size_t D>
Tensor<D> celu(const Tensor<D>& x, double alpha = 1.0) {
  return Tensor<D>(ops::celu(x.handle(), alpha));
}
/// relu6(x + 3) / 6 (PyTorch's hardsigmoid).
template <std::size_t D>
Tensor<D> hard_sigmoid(const Tensor<D>& x) {
  return Tensor<D>(ops::hard_sigmoid(x.handle()));
}
/// x * relu6(x + 3) / 6.
template <std::size_t D>
Tensor<D> hard_swish(const Tensor<D>& x) {
  return Tensor<D>(ops::hard_swish(x.handle()));
}
/// tanh(x), here for completeness (the same op as Tensor::tanh).
template <std::size_t D>
Tensor<D> tanh(const Tensor<D>& x) {
  return Tensor<D>(ops::tanh(x.handle()));
}
/// a * sigmoid(b), a and b the halves of x along dim (of even size); the result is half as
/// long along dim.
template <std::size_t D>
Tensor<D> glu(const Tensor<D>& x, int64_t dim) {
  return Tensor<D>(ops::glu(x.handle(), dim));
}
/// exp(x) / sum(exp(x)) along dim (negative counts from the end), stable for large x.
template <std::size_t D>
Tensor<D> softmax(const Tensor<D>& x, int64_t dim) {
  return Tensor<D>(ops::softmax(x.handle(), dim));
}
/// log(softmax(x)) along dim, computed as x - max - log(sum(exp(x - max))).
template <std::size_t D>
Tensor<D> log_softmax(const Tensor<D>& x, int64_t dim) {
  return Tensor<D>(ops::log_softmax(x.handle(), dim));
}

}  // namespace ember::activation
