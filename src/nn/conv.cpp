#include "ember/nn/conv.h"

#include <string>
#include <vector>

#include "config_checks.h"

namespace ember::nn {
namespace {

/// The options a convolution and a transposed one share.
struct ConvGeometry {
  int64_t in_channels;
  int64_t out_channels;
  const ops::Dims& kernel_size;
  const ops::Dims& stride;
  const ops::Dims& padding;
  const ops::Dims& dilation;
  int64_t groups;
};

void check_geometry(const std::string& layer, std::size_t spatial_dims, const ConvGeometry& g) {
  detail::require_at_least(layer, "in_channels", g.in_channels, 1);
  detail::require_at_least(layer, "out_channels", g.out_channels, 1);
  detail::require_at_least(layer, "groups", g.groups, 1);
  if (g.in_channels % g.groups != 0 || g.out_channels % g.groups != 0) {
    detail::fail(layer, "groups ", g.groups, " must divide in_channels ", g.in_channels,
                 " and out_channels ", g.out_channels);
  }
  detail::require_per_dim(layer, "kernel_size", g.kernel_size, spatial_dims, 1);
  detail::require_per_dim(layer, "stride", g.stride, spatial_dims, 1);
  detail::require_per_dim(layer, "padding", g.padding, spatial_dims, 0);
  detail::require_per_dim(layer, "dilation", g.dilation, spatial_dims, 1);
}

/// [first, second, *kernel_size], the kernel spelled out for each spatial dim.
Shape weight_shape(int64_t first, int64_t second, const ops::Dims& kernel_size,
                   std::size_t spatial_dims) {
  std::vector<int64_t> dims{first, second};
  for (std::size_t i = 0; i < spatial_dims; ++i)
    dims.push_back(detail::per_dim_value(kernel_size, i));
  return Shape(std::move(dims));
}

template <std::size_t D>
Param<D> make_weight(const std::optional<Initializer>& init, const Shape& shape,
                     const Device& device) {
  return Param<D>(Tensor<D>(init.value_or(default_weight_init()).make(shape, device)));
}

/// bias [out_channels], by default U(-1/sqrt(fan_in), 1/sqrt(fan_in)) of the weight.
Param<1> make_bias(const std::optional<Initializer>& init, int64_t out_channels,
                   const Shape& weight, const Device& device) {
  const Initializer rule = init.value_or(default_bias_init(fans_of(weight).in));
  return Param<1>(Tensor<1>(rule.make(Shape{out_channels}, device)));
}

}  // namespace

template <std::size_t N>
Conv<N> ConvConfig<N>::init(const Device& device) const {
  const std::string layer = detail::spatial_layer_name("Conv", N);
  check_geometry(layer, N,
                 {in_channels, out_channels, kernel_size, stride, padding, dilation, groups});
  const Shape shape = weight_shape(out_channels, in_channels / groups, kernel_size, N);
  Conv<N> conv;
  conv.weight = make_weight<N + 2>(weight_init, shape, device);
  if (bias) conv.bias = make_bias(bias_init, out_channels, shape, device);
  conv.options = {stride, padding, dilation, groups};
  return conv;
}

template <std::size_t N>
ConvTranspose<N> ConvTransposeConfig<N>::init(const Device& device) const {
  const std::string layer = detail::spatial_layer_name("ConvTranspose", N);
  check_geometry(layer, N,
                 {in_channels, out_channels, kernel_size, stride, padding, dilation, groups});
  detail::require_per_dim(layer, "output_padding", output_padding, N, 0);
  for (std::size_t i = 0; i < N; ++i) {
    const int64_t extra = detail::per_dim_value(output_padding, i);
    if (extra >= detail::per_dim_value(stride, i) && extra >= detail::per_dim_value(dilation, i)) {
      detail::fail(layer, "output_padding ", extra, " of spatial dim ", i,
                   " must be below its stride ", detail::per_dim_value(stride, i),
                   " or its dilation ", detail::per_dim_value(dilation, i));
    }
  }
  const Shape shape = weight_shape(in_channels, out_channels / groups, kernel_size, N);
  ConvTranspose<N> conv;
  conv.weight = make_weight<N + 2>(weight_init, shape, device);
  if (bias) conv.bias = make_bias(bias_init, out_channels, shape, device);
  conv.options = {stride, padding, output_padding, dilation, groups};
  return conv;
}

template struct ConvConfig<1>;
template struct ConvConfig<2>;
template struct ConvConfig<3>;
template struct ConvTransposeConfig<1>;
template struct ConvTransposeConfig<2>;
template struct ConvTransposeConfig<3>;

}  // namespace ember::nn
