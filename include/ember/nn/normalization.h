// Normalization layers (torch.nn.BatchNorm1d/2d/3d as one BatchNorm, LayerNorm, GroupNorm,
// RMSNorm: parameter and buffer names, shapes, defaults and initialization), on ember::module's
// normalizations.
//
//   nn::BatchNorm bn = nn::BatchNormConfig{16}.init(device);
//   Tensor<4> y = bn.forward(x);  // training: batch statistics, running statistics updated
//   nn::eval(bn);
//   Tensor<4> z = bn.forward(x);  // inference: the running statistics
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "ember/functional.h"
#include "ember/nn/module.h"
#include "ember/nn/optional_handle.h"

namespace ember::nn {

/// Batch normalization of x [batch, C, ...] (rank 2 to 5: BatchNorm1d, 2d and 3d in one) per
/// channel: (x - mean) / sqrt(var + eps) * weight + bias.
///
/// In training (`training` true) it uses the batch's mean and biased variance and, when it
/// tracks running statistics, updates them: num_batches_tracked += 1, then running = (1 - m) *
/// running + m * batch statistic (unbiased variance), m = momentum, or 1 / num_batches_tracked
/// (a cumulative average) when momentum is unset. forward is therefore not const. In inference
/// it uses the running statistics, or the batch's when it tracks none (as PyTorch).
struct BatchNorm {
  std::optional<Param<1>> weight;         ///< [C], ones at first (affine only)
  std::optional<Param<1>> bias;           ///< [C], zeros at first (affine only)
  std::optional<Buffer<1>> running_mean;  ///< [C], zeros at first (track_running_stats only)
  std::optional<Buffer<1>> running_var;   ///< [C], ones at first (track_running_stats only)
  /// [1]: the batches seen in training (PyTorch's 0-dim counter, as rank 1).
  std::optional<Buffer<1, Int>> num_batches_tracked;
  int64_t num_features = 0;
  std::optional<double> momentum = 0.1;
  double eps = 1e-5;
  bool training = true;
  EMBER_MODULE(weight, bias, running_mean, running_var, num_batches_tracked)

  /// x [batch, C, ...] → the same shape. InvalidArgument "[BatchNorm] ..." when x's dim 1 is not
  /// num_features; in training, when a channel has a single value.
  template <std::size_t D>
  Tensor<D> forward(const Tensor<D>& x) {
    static_assert(D >= 2 && D <= 5, "BatchNorm takes [batch, C] to [batch, C, D, H, W]");
    return Tensor<D>(normalize(x.handle()));
  }
  /// forward on an untyped x.
  TensorHandle normalize(const TensorHandle& x);

 private:
  /// The blend factor m of the batch about to be counted.
  double momentum_of_next_batch() const;
};

/// How to build a BatchNorm (torch.nn.BatchNormNd's arguments, in its order).
struct BatchNormConfig {
  int64_t num_features;  ///< C, >= 1
  double eps = 1e-5;     ///< finite, >= 0
  /// In [0, 1]; unset: a cumulative moving average (PyTorch's momentum=None).
  std::optional<double> momentum = 0.1;
  bool affine = true;               ///< learn weight and bias
  bool track_running_stats = true;  ///< keep running_mean, running_var, num_batches_tracked

  /// InvalidArgument "[BatchNorm] ..." naming a bad num_features, eps or momentum.
  BatchNorm init(const Device& device) const;
};

/// Layer normalization over the W trailing dims normalized_shape:
/// (x - mean) / sqrt(var + eps) * weight + bias, mean and biased variance over those dims.
template <std::size_t W>
struct LayerNormNd {
  std::optional<Param<W>> weight;  ///< normalized_shape, ones at first (elementwise_affine)
  std::optional<Param<W>> bias;    ///< normalized_shape, zeros at first (elementwise_affine, bias)
  std::array<int64_t, W> normalized_shape{};
  double eps = 1e-5;
  EMBER_MODULE(weight, bias)

  /// x [..., *normalized_shape] → the same shape.
  template <std::size_t D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return Tensor<D>(ops::layer_norm(x.handle(),
                                     ops::Dims(normalized_shape.begin(), normalized_shape.end()),
                                     optional_handle(weight), optional_handle(bias), eps));
  }
};
/// LayerNorm over the last dim, the usual case (`nn::LayerNormConfig{512}`).
using LayerNorm = LayerNormNd<1>;

/// How to build a LayerNormNd (torch.nn.LayerNorm's arguments, in its order; W from 1 to 3).
template <std::size_t W>
struct LayerNormNdConfig {
  std::array<int64_t, W> normalized_shape;  ///< each >= 1
  double eps = 1e-5;                        ///< finite, >= 0
  bool elementwise_affine = true;           ///< learn weight (and bias)
  bool bias = true;                         ///< learn bias too (with elementwise_affine)

  /// InvalidArgument "[LayerNorm] ..." naming a bad normalized_shape or eps.
  LayerNormNd<W> init(const Device& device) const;
};
using LayerNormConfig = LayerNormNdConfig<1>;

/// RMS normalization over the W trailing dims normalized_shape: x / sqrt(mean(x^2) + eps) *
/// weight (torch.nn.RMSNorm).
template <std::size_t W>
struct RmsNormNd {
  std::optional<Param<W>> weight;  ///< normalized_shape, ones at first (elementwise_affine)
  std::array<int64_t, W> normalized_shape{};
  std::optional<double> eps = std::nullopt;  ///< unset: the machine epsilon of x's dtype
  EMBER_MODULE(weight)

  /// x [..., *normalized_shape] → the same shape.
  template <std::size_t D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return Tensor<D>(ops::rms_norm(x.handle(),
                                   ops::Dims(normalized_shape.begin(), normalized_shape.end()),
                                   optional_handle(weight), eps));
  }
};
/// RmsNorm over the last dim.
using RmsNorm = RmsNormNd<1>;

/// How to build an RmsNormNd (torch.nn.RMSNorm's arguments, in its order; W from 1 to 3).
template <std::size_t W>
struct RmsNormNdConfig {
  std::array<int64_t, W> normalized_shape;   ///< each >= 1
  std::optional<double> eps = std::nullopt;  ///< finite, >= 0; unset: x's machine epsilon
  bool elementwise_affine = true;            ///< learn weight

  /// InvalidArgument "[RmsNorm] ..." naming a bad normalized_shape or eps.
  RmsNormNd<W> init(const Device& device) const;
};
using RmsNormConfig = RmsNormNdConfig<1>;

/// Group normalization of x [batch, C, ...]: the channels in num_groups groups, each group
/// normalized over its channels and positions, then weight [C] * . + bias [C] per channel.
struct GroupNorm {
  std::optional<Param<1>> weight;  ///< [C], ones at first (affine)
  std::optional<Param<1>> bias;    ///< [C], zeros at first (affine)
  int64_t num_groups = 1;
  double eps = 1e-5;
  EMBER_MODULE(weight, bias)

  /// x [batch, C, ...] → the same shape.
  template <std::size_t D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return Tensor<D>(ops::group_norm(x.handle(), num_groups, optional_handle(weight),
                                     optional_handle(bias), eps));
  }
};

/// How to build a GroupNorm (torch.nn.GroupNorm's arguments, in its order).
struct GroupNormConfig {
  int64_t num_groups;    ///< >= 1, divides num_channels
  int64_t num_channels;  ///< >= 1
  double eps = 1e-5;     ///< finite, >= 0
  bool affine = true;    ///< learn weight and bias

  /// InvalidArgument "[GroupNorm] ..." naming a bad count or eps.
  GroupNorm init(const Device& device) const;
};

}  // namespace ember::nn
