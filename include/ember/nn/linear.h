// nn::Linear: y = x W^T + b (torch.nn.Linear: names, shapes and initialization).
#pragma once

#include <cstdint>
#include <optional>

#include "ember/functional.h"
#include "ember/nn/init.h"
#include "ember/nn/module.h"

namespace ember::nn {

/// weight [out, in], bias [out] (PyTorch's names and layout, so records interoperate).
struct Linear {
  Param<2> weight;
  std::optional<Param<1>> bias;
  EMBER_MODULE(weight, bias)

  /// x [..., in] → [..., out].
  template <std::size_t D>
  Tensor<D> forward(const Tensor<D>& x) const {
    std::optional<Tensor<1>> b;
    if (bias) b = bias->value();
    return module::linear(x, *weight, b);
  }
};

/// How to build a Linear: `nn::LinearConfig{784, 128}.init(device)`.
struct LinearConfig {
  int64_t in_features;
  int64_t out_features;
  bool bias = true;
  /// Unset: PyTorch's defaults (default_weight_init, default_bias_init).
  std::optional<Initializer> weight_init = std::nullopt;
  std::optional<Initializer> bias_init = std::nullopt;

  /// InvalidArgument "[Linear] ..." for a feature count < 1.
  Linear init(const Device& device) const;
};

}  // namespace ember::nn
