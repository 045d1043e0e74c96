// nn::Dropout (torch.nn.Dropout): zeroes elements at random in training, drawn from the device's
// random stream (Device::seed makes it reproducible); the identity in inference.
#pragma once

#include <cstddef>

#include "ember/functional.h"
#include "ember/nn/stateless.h"

namespace ember::nn {

/// Each element zeroed with probability p in training, the others scaled by 1 / (1 - p).
/// nn::train / nn::eval set `training`.
struct Dropout {
  double p = 0.5;  ///< in [0, 1)
  bool training = true;
  EMBER_MODULE()

  /// x → the same shape (x itself in inference or with p 0).
  template <std::size_t D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return module::dropout(x, p, training);
  }
};

/// How to build a Dropout: `nn::DropoutConfig{0.1}.init(device)`.
struct DropoutConfig {
  double p = 0.5;  ///< in [0, 1)

  /// InvalidArgument "[Dropout] p ..." for a p outside [0, 1).
  Dropout init(const Device& device) const;
};

}  // namespace ember::nn
