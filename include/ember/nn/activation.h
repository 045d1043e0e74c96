// Activation layers (torch.nn.ReLU, LeakyReLU, GELU, Sigmoid, Tanh, SiLU, Softplus, Mish, ELU,
// SELU, CELU, Hardsigmoid, Hardswish, PReLU, Softmax, LogSoftmax: options and defaults), on
// ember::activation. Only Prelu has a param; the others hold their options, and those without
// options are used as they are: `nn::Relu relu; y = relu.forward(x);`.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ember/activation_functions.h"
#include "ember/nn/module.h"
#include "ember/nn/stateless.h"

namespace ember::nn {

namespace detail {
/// A layer applying op, an activation without options, elementwise.
template <TensorHandle (*Op)(const TensorHandle&)>
struct OptionFreeActivation {
  EMBER_MODULE()

  /// x → the same shape.
  template <std::size_t D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return Tensor<D>(Op(x.handle()));
  }
};
}  // namespace detail

/// max(x, 0).
using Relu = detail::OptionFreeActivation<&ops::relu>;
/// 1 / (1 + exp(-x)).
using Sigmoid = detail::OptionFreeActivation<&ops::sigmoid>;
/// tanh(x).
using Tanh = detail::OptionFreeActivation<&ops::tanh>;
/// x * sigmoid(x) (swish).
using Silu = detail::OptionFreeActivation<&ops::silu>;
/// x * tanh(softplus(x)).
using Mish = detail::OptionFreeActivation<&ops::mish>;
/// 1.0507 * elu(x, 1.6733) (PyTorch's exact constants).
using Selu = detail::OptionFreeActivation<&ops::selu>;
/// relu6(x + 3) / 6.
using HardSigmoid = detail::OptionFreeActivation<&ops::hard_sigmoid>;
/// x * relu6(x + 3) / 6.
using HardSwish = detail::OptionFreeActivation<&ops::hard_swish>;

using ReluConfig = StatelessConfig<Relu>;
using SigmoidConfig = StatelessConfig<Sigmoid>;
using TanhConfig = StatelessConfig<Tanh>;
using SiluConfig = StatelessConfig<Silu>;
using MishConfig = StatelessConfig<Mish>;
using SeluConfig = StatelessConfig<Selu>;
using HardSigmoidConfig = StatelessConfig<HardSigmoid>;
using HardSwishConfig = StatelessConfig<HardSwish>;

/// x for x > 0, else negative_slope * x.
struct LeakyRelu {
  double negative_slope = 0.01;
  EMBER_MODULE()

  template <std::size_t D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return activation::leaky_relu(x, negative_slope);
  }
};
struct LeakyReluConfig {
  double negative_slope = 0.01;  ///< finite
  /// InvalidArgument "[LeakyRelu] negative_slope ..." unless it is finite.
  LeakyRelu init(const Device& device) const;
};

/// PyTorch's `approximate` option of GELU.
enum class GeluApproximation { None, Tanh };

/// x * Phi(x) (exact, with erf), or its tanh approximation.
struct Gelu {
  GeluApproximation approximate = GeluApproximation::None;
  EMBER_MODULE()

  template <std::size_t D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return approximate == GeluApproximation::Tanh ? activation::gelu_tanh(x) : activation::gelu(x);
  }
};
struct GeluConfig {
  GeluApproximation approximate = GeluApproximation::None;
  Gelu init(const Device& device) const;
};

/// log(1 + exp(beta x)) / beta, and x where beta x > 20 (PyTorch's default threshold, fixed).
struct Softplus {
  double beta = 1.0;
  EMBER_MODULE()

  template <std::size_t D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return activation::softplus(x, beta);
  }
};
struct SoftplusConfig {
  double beta = 1.0;  ///< finite, non-zero
  /// InvalidArgument "[Softplus] beta ..." unless it is finite and non-zero.
  Softplus init(const Device& device) const;
};

/// x for x > 0, else alpha * (exp(x) - 1).
struct Elu {
  double alpha = 1.0;
  EMBER_MODULE()

  template <std::size_t D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return activation::elu(x, alpha);
  }
};
struct EluConfig {
  double alpha = 1.0;  ///< finite
  /// InvalidArgument "[Elu] alpha ..." unless it is finite.
  Elu init(const Device& device) const;
};

/// x for x > 0, else alpha * (exp(x / alpha) - 1).
struct Celu {
  double alpha = 1.0;
  EMBER_MODULE()

  template <std::size_t D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return activation::celu(x, alpha);
  }
};
struct CeluConfig {
  double alpha = 1.0;  ///< finite, non-zero
  /// InvalidArgument "[Celu] alpha ..." unless it is finite and non-zero.
  Celu init(const Device& device) const;
};

/// x for x >= 0, else weight * x: a learned slope, shared (1 param) or one per channel (x's
/// dim 1).
struct Prelu {
  Param<1> weight;  ///< [num_parameters]
  EMBER_MODULE(weight)

  template <std::size_t D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return activation::prelu(x, *weight);
  }
};
/// How to build a Prelu (torch.nn.PReLU's arguments).
struct PreluConfig {
  int64_t num_parameters = 1;  ///< 1, or x's channel count
  double init_value = 0.25;    ///< every slope's first value (PyTorch's `init`), finite
  /// InvalidArgument "[Prelu] ..." for num_parameters < 1 or a non-finite init_value.
  Prelu init(const Device& device) const;
};

/// exp(x) / sum(exp(x)) along dim (negative counts from the end).
struct Softmax {
  int64_t dim;
  EMBER_MODULE()

  template <std::size_t D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return activation::softmax(x, dim);
  }
};
struct SoftmaxConfig {
  int64_t dim;  ///< checked against x's rank in forward
  Softmax init(const Device& device) const;
};

/// log(softmax(x)) along dim, computed stably.
struct LogSoftmax {
  int64_t dim;
  EMBER_MODULE()

  template <std::size_t D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return activation::log_softmax(x, dim);
  }
};
struct LogSoftmaxConfig {
  int64_t dim;  ///< checked against x's rank in forward
  LogSoftmax init(const Device& device) const;
};

}  // namespace ember::nn
