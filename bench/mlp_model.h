// The model of the gradient-checkpointing benchmark: an MLP whose layers are matmul + bias, a
// GELU written from primitive ops (tanh form) and a layer norm written from mean_dim / var / sub /
// div / sqrt, so that most of its ops are memory-bound elementwise ops. tests/autodiff checks the
// checkpointing target on it, the benchmark times it.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "ember/ember.h"

namespace ember::bench {

struct MlpSize {
  int64_t layers = 16;
  int64_t width = 256;
  int64_t batch = 64;
};

struct Mlp {
  std::vector<Tensor<2>> weights;  // [width, width] leaves that require grad
  std::vector<Tensor<2>> biases;   // [1, width] leaves that require grad
  Tensor<2> input;                 // [batch, width], a constant
};

/// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
inline Tensor<2> gelu(const Tensor<2>& x) {
  const Tensor<2> inner = x.add(x.powi_scalar(3).mul_scalar(0.044715)).mul_scalar(0.79788456);
  return x.mul_scalar(0.5).mul(inner.tanh().add_scalar(1.0));
}

/// Normalizes each row to mean 0 and variance 1 (no affine parameters).
inline Tensor<2> layer_norm(const Tensor<2>& x) {
  const Tensor<2> centered = x.sub(x.mean_dim(1));
  return centered.div(x.var_biased(1).add_scalar(1e-5).sqrt());
}

/// A model with weights ~ N(0, 1/width) and zero biases, and a N(0, 1) input, drawn from seed on
/// device (so two devices sharing a physical device get the same model).
inline Mlp make_mlp(const MlpSize& size, const Device& device, uint64_t seed) {
  device.seed(seed);
  Mlp mlp{{}, {}, Tensor<2>::random({size.batch, size.width}, Distribution::normal(0, 1), device)};
  const double scale = 1.0 / std::sqrt(static_cast<double>(size.width));
  for (int64_t i = 0; i < size.layers; ++i) {
    mlp.weights.push_back(
        Tensor<2>::random({size.width, size.width}, Distribution::normal(0, scale), device)
            .require_grad());
    mlp.biases.push_back(Tensor<2>::zeros({1, size.width}, device).require_grad());
  }
  return mlp;
}

/// The mean of the squared outputs.
inline Tensor<1> forward_loss(const Mlp& mlp) {
  Tensor<2> h = mlp.input;
  for (std::size_t i = 0; i < mlp.weights.size(); ++i)
    h = layer_norm(gelu(h.matmul(mlp.weights[i]).add(mlp.biases[i])));
  return h.mul(h).mean();
}

}  // namespace ember::bench
