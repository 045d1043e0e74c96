// nn::PositionalEncoding: the sinusoidal position table of "Attention Is All You Need" added to a
// batch-first sequence, then dropout (the PyTorch tutorial's PositionalEncoding).
#pragma once

#include <cstdint>

#include "ember/nn/dropout.h"
#include "ember/nn/module.h"

namespace ember::nn {

/// The table [length, d_model]: for position p and i < d_model / 2,
/// [p, 2i] = sin(p / 10000^(2i / d_model)) and [p, 2i + 1] = cos(p / 10000^(2i / d_model)).
/// An odd d_model ends with a sin column. InvalidArgument "[PositionalEncoding] ..." for
/// length < 0 or d_model < 1.
Tensor<2> sinusoidal_table(int64_t length, int64_t d_model, const TensorCreationOptions& options);

/// No params and no buffers: the table is a function of the sequence length, computed in each
/// forward on x's device and in x's dtype, so it is never saved and any length works.
struct PositionalEncoding {
  int64_t d_model = 0;
  /// Applied to the sum.
  Dropout dropout;
  EMBER_MODULE(dropout)

  /// x [B, L, d_model] + table[:L] (broadcast over the batch), then dropout.
  /// InvalidArgument "[PositionalEncoding] ..." when x's last dim is not d_model.
  Tensor<3> forward(const Tensor<3>& x) const;
};

/// How to build a PositionalEncoding: `nn::PositionalEncodingConfig{512}.init(device)`.
struct PositionalEncodingConfig {
  int64_t d_model;
  double dropout = 0.1;

  /// InvalidArgument "[PositionalEncoding] ..." for d_model < 1 or dropout outside [0, 1).
  PositionalEncoding init(const Device& device) const;
};

}  // namespace ember::nn
