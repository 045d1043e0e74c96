#include "ember/nn/normalization.h"

#include <string_view>

#include "config_checks.h"

namespace ember::nn {
namespace {

template <std::size_t W>
void check_normalized_shape(std::string_view layer, const std::array<int64_t, W>& shape) {
  for (int64_t d : shape) {
    if (d < 1) {
      detail::fail(layer, "normalized_shape ",
                   Shape(std::vector<int64_t>(shape.begin(), shape.end())),
                   " must hold sizes >= 1");
    }
  }
}

/// A [C] param or buffer filled with value.
Tensor<1> per_channel(int64_t channels, double value, const Device& device) {
  return Tensor<1>::full({channels}, value, device);
}

}  // namespace

TensorHandle BatchNorm::normalize(const TensorHandle& x) {
  if (x.rank() < 2 || x.shape()[1] != num_features) {
    detail::fail("BatchNorm", "x ", x.shape(), " must be [batch, ", num_features, ", ...]");
  }
  const bool tracking = running_mean && running_var;
  const bool update = training && tracking;
  const double blend = update ? momentum_of_next_batch() : 0.0;
  ops::BatchNormResult result = ops::batch_norm(
      x, optional_handle(running_mean), optional_handle(running_var), optional_handle(weight),
      optional_handle(bias), training || !tracking, blend, eps);
  // Only once the batch went through: a refused batch leaves the statistics as they were.
  if (update) {
    running_mean->assign(*result.running_mean);
    running_var->assign(*result.running_var);
    if (num_batches_tracked) {
      num_batches_tracked->assign(ops::add_scalar(num_batches_tracked->handle(), Scalar(1)));
    }
  }
  return result.output;
}

double BatchNorm::momentum_of_next_batch() const {
  if (momentum) return *momentum;
  if (!num_batches_tracked) {
    detail::fail("BatchNorm", "a cumulative average (momentum unset) needs num_batches_tracked");
  }
  const double seen = ops::into_data(num_batches_tracked->handle()).to_vector<double>().at(0);
  return 1.0 / (seen + 1.0);
}

BatchNorm BatchNormConfig::init(const Device& device) const {
  detail::require_at_least("BatchNorm", "num_features", num_features, 1);
  detail::require_non_negative("BatchNorm", "eps", eps);
  if (momentum && !(*momentum >= 0.0 && *momentum <= 1.0)) {
    detail::fail("BatchNorm", "momentum ", *momentum, " must be in [0, 1]");
  }
  BatchNorm bn;
  bn.num_features = num_features;
  bn.momentum = momentum;
  bn.eps = eps;
  if (affine) {
    bn.weight = Param<1>(per_channel(num_features, 1.0, device));
    bn.bias = Param<1>(per_channel(num_features, 0.0, device));
  }
  if (track_running_stats) {
    bn.running_mean = Buffer<1>(per_channel(num_features, 0.0, device));
    bn.running_var = Buffer<1>(per_channel(num_features, 1.0, device));
    bn.num_batches_tracked = Buffer<1, Int>(Tensor<1, Int>::zeros({1}, device));
  }
  return bn;
}

template <std::size_t W>
LayerNormNd<W> LayerNormNdConfig<W>::init(const Device& device) const {
  check_normalized_shape("LayerNorm", normalized_shape);
  detail::require_non_negative("LayerNorm", "eps", eps);
  LayerNormNd<W> norm;
  norm.normalized_shape = normalized_shape;
  norm.eps = eps;
  if (elementwise_affine) {
    norm.weight = Param<W>(Tensor<W>::ones(normalized_shape, device));
    if (bias) norm.bias = Param<W>(Tensor<W>::zeros(normalized_shape, device));
  }
  return norm;
}

template <std::size_t W>
RmsNormNd<W> RmsNormNdConfig<W>::init(const Device& device) const {
  check_normalized_shape("RmsNorm", normalized_shape);
  if (eps) detail::require_non_negative("RmsNorm", "eps", *eps);
  RmsNormNd<W> norm;
  norm.normalized_shape = normalized_shape;
  norm.eps = eps;
  if (elementwise_affine) norm.weight = Param<W>(Tensor<W>::ones(normalized_shape, device));
  return norm;
}

GroupNorm GroupNormConfig::init(const Device& device) const {
  detail::require_at_least("GroupNorm", "num_groups", num_groups, 1);
  detail::require_at_least("GroupNorm", "num_channels", num_channels, 1);
  if (num_channels % num_groups != 0) {
    detail::fail("GroupNorm", "num_groups ", num_groups, " must divide num_channels ",
                 num_channels);
  }
  detail::require_non_negative("GroupNorm", "eps", eps);
  GroupNorm norm;
  norm.num_groups = num_groups;
  norm.eps = eps;
  if (affine) {
    norm.weight = Param<1>(per_channel(num_channels, 1.0, device));
    norm.bias = Param<1>(per_channel(num_channels, 0.0, device));
  }
  return norm;
}

template struct LayerNormNdConfig<1>;
template struct LayerNormNdConfig<2>;
template struct LayerNormNdConfig<3>;
template struct RmsNormNdConfig<1>;
template struct RmsNormNdConfig<2>;
template struct RmsNormNdConfig<3>;

}  // namespace ember::nn
