#include "ember/nn/pool.h"

#include <string>

#include "config_checks.h"

namespace ember::nn {
namespace {

/// kernel_size, stride (empty allowed: the kernel) and padding, at most half the kernel as
/// PyTorch requires.
void check_window(const std::string& layer, std::size_t spatial_dims, const ops::Dims& kernel_size,
                  const ops::Dims& stride, const ops::Dims& padding) {
  detail::require_per_dim(layer, "kernel_size", kernel_size, spatial_dims, 1);
  if (!stride.empty()) detail::require_per_dim(layer, "stride", stride, spatial_dims, 1);
  detail::require_per_dim(layer, "padding", padding, spatial_dims, 0);
  for (std::size_t i = 0; i < spatial_dims; ++i) {
    const int64_t pad = detail::per_dim_value(padding, i);
    const int64_t kernel = detail::per_dim_value(kernel_size, i);
    if (pad > kernel / 2) {
      detail::fail(layer, "padding ", pad, " of spatial dim ", i, " must be at most half of its ",
                   "kernel_size ", kernel);
    }
  }
}

}  // namespace

template <std::size_t N>
MaxPool<N> MaxPoolConfig<N>::init(const Device& /*device*/) const {
  const std::string layer = detail::spatial_layer_name("MaxPool", N);
  check_window(layer, N, kernel_size, stride, padding);
  detail::require_per_dim(layer, "dilation", dilation, N, 1);
  return {{kernel_size, stride, padding, dilation, ceil_mode}};
}

template <std::size_t N>
AvgPool<N> AvgPoolConfig<N>::init(const Device& /*device*/) const {
  const std::string layer = detail::spatial_layer_name("AvgPool", N);
  check_window(layer, N, kernel_size, stride, padding);
  if (divisor_override) detail::require_at_least(layer, "divisor_override", *divisor_override, 1);
  return {{kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override}};
}

template <std::size_t N>
AdaptiveAvgPool<N> AdaptiveAvgPoolConfig<N>::init(const Device& /*device*/) const {
  detail::require_per_dim(detail::spatial_layer_name("AdaptiveAvgPool", N), "output_size",
                          output_size, N, 1);
  return {output_size};
}

template struct MaxPoolConfig<1>;
template struct MaxPoolConfig<2>;
template struct AvgPoolConfig<1>;
template struct AvgPoolConfig<2>;
template struct AdaptiveAvgPoolConfig<1>;
template struct AdaptiveAvgPoolConfig<2>;

}  // namespace ember::nn
