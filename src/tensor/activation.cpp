// Activations and softmax: one ir op each (ir::Activation, ir::Softmax), except prelu and glu,
// which are composites of other ops.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ember/tensor_ops.h"
#include "tensor/check.h"
#include "tensor/dispatch.h"

namespace ember::ops {
namespace {

using ir::ActivationOp;
using tensor::fail;
using tensor::KindRule;

TensorHandle activation(const TensorHandle& x, const ir::Activation& op, std::string_view name) {
  tensor::require(x, KindRule::Float, name);
  return tensor::run_one(op, {x});
}

TensorHandle softmax_along(const TensorHandle& x, int64_t dim, bool log, std::string_view name) {
  tensor::require(x, KindRule::Float, name);
  return tensor::run_one(ir::Softmax{tensor::normalize_dim(dim, x.rank(), name), log}, {x});
}

/// The channel count prelu's weight may have besides 1: x's dim 1 (1 for a rank-1 x).
int64_t prelu_channels(const TensorHandle& x) {
  return x.rank() >= 2 ? x.shape()[1] : 1;
}

/// weight as x's dtype, shaped [1, n, 1, ...] (rank of x) to broadcast along x's dim 1.
TensorHandle per_channel(const TensorHandle& weight, const TensorHandle& x) {
  Dims dims(x.rank(), 1);
  dims[x.rank() >= 2 ? 1 : 0] = weight.shape()[0];
  return reshape(cast(weight, x.dtype()), dims);
}

}  // namespace

TensorHandle relu(const TensorHandle& x) {
  return activation(x, {ActivationOp::Relu}, "relu");
}
TensorHandle leaky_relu(const TensorHandle& x, double negative_slope) {
  return activation(x, {ActivationOp::LeakyRelu, negative_slope}, "leaky_relu");
}
TensorHandle gelu(const TensorHandle& x) {
  return activation(x, {ActivationOp::Gelu}, "gelu");
}
TensorHandle gelu_tanh(const TensorHandle& x) {
  return activation(x, {ActivationOp::GeluTanh}, "gelu_tanh");
}
TensorHandle sigmoid(const TensorHandle& x) {
  return activation(x, {ActivationOp::Sigmoid}, "sigmoid");
}
TensorHandle log_sigmoid(const TensorHandle& x) {
  return activation(x, {ActivationOp::LogSigmoid}, "log_sigmoid");
}
TensorHandle silu(const TensorHandle& x) {
  return activation(x, {ActivationOp::Silu}, "silu");
}
TensorHandle softplus(const TensorHandle& x, double beta) {
  return activation(x, {ActivationOp::Softplus, 0.0, beta}, "softplus");
}
TensorHandle mish(const TensorHandle& x) {
  return activation(x, {ActivationOp::Mish}, "mish");
}
TensorHandle elu(const TensorHandle& x, double alpha) {
  return activation(x, {ActivationOp::Elu, alpha}, "elu");
}
TensorHandle selu(const TensorHandle& x) {
  return activation(x, {ActivationOp::Selu}, "selu");
}
TensorHandle celu(const TensorHandle& x, double alpha) {
  return activation(x, {ActivationOp::Celu, alpha}, "celu");
}
TensorHandle hard_sigmoid(const TensorHandle& x) {
  return activation(x, {ActivationOp::HardSigmoid}, "hard_sigmoid");
}
TensorHandle hard_swish(const TensorHandle& x) {
  return activation(x, {ActivationOp::HardSwish}, "hard_swish");
}

TensorHandle prelu(const TensorHandle& x, const TensorHandle& weight) {
  tensor::require(x, KindRule::Float, "prelu");
  tensor::require(weight, KindRule::Float, "prelu");
  const int64_t channels = prelu_channels(x);
  const bool fits = weight.rank() == 1 && (weight.shape()[0] == 1 || weight.shape()[0] == channels);
  if (!fits) {
    fail("prelu", "weight ", weight.shape(), " must have 1 or ", channels,
         " elements (the channels of x ", x.shape(), ")");
  }
  return where(greater_equal_elem(x, 0), x, mul(per_channel(weight, x), x));
}

TensorHandle glu(const TensorHandle& x, int64_t dim) {
  tensor::require(x, KindRule::Float, "glu");
  const int64_t d = tensor::normalize_dim(dim, x.rank(), "glu");
  const int64_t size = x.shape()[static_cast<std::size_t>(d)];
  if (size % 2 != 0) fail("glu", "dim ", dim, " of x ", x.shape(), " has odd size ", size);
  // The two chunks as narrows: also right for an empty dim, where chunk gives one piece.
  const int64_t half = size / 2;
  return mul(narrow(x, d, 0, half), sigmoid(narrow(x, d, half, half)));
}

TensorHandle softmax(const TensorHandle& x, int64_t dim) {
  return softmax_along(x, dim, false, "softmax");
}
TensorHandle log_softmax(const TensorHandle& x, int64_t dim) {
  return softmax_along(x, dim, true, "log_softmax");
}

}  // namespace ember::ops
