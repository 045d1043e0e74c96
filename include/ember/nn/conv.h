// Convolution layers (torch.nn.Conv1d/2d/3d, ConvTranspose1d/2d/3d: parameter names, layouts,
// options, defaults and initialization), on module::conv / module::conv_transpose.
//
// Per-dim options (kernel_size, stride, padding, dilation, output_padding) hold one value for
// every spatial dim or one per spatial dim, as in ember::module:
//
//   nn::Conv2d conv = nn::Conv2dConfig{.in_channels = 1, .out_channels = 8, .kernel_size = {3},
//                                      .padding = {1}}.init(device);
//   Tensor<4> y = conv.forward(x);  // x [N, 1, H, W] → [N, 8, H, W]
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "ember/convolution.h"
#include "ember/nn/init.h"
#include "ember/nn/module.h"
#include "ember/nn/optional_handle.h"

namespace ember::nn {

/// A convolution over N spatial dims: weight [out_channels, in_channels / groups, *kernel_size],
/// bias [out_channels].
template <std::size_t N>
struct Conv {
  static_assert(N >= 1 && N <= 3, "convolutions have 1 to 3 spatial dims");
  Param<N + 2> weight;
  std::optional<Param<1>> bias;
  module::ConvOptions options;
  EMBER_MODULE(weight, bias)

  /// x [batch, in_channels, *in] → [batch, out_channels, *out] (sizes as ops::conv).
  Tensor<N + 2> forward(const Tensor<N + 2>& x) const {
    return Tensor<N + 2>(ops::conv(x.handle(), weight.handle(), optional_handle(bias), options));
  }
};
using Conv1d = Conv<1>;
using Conv2d = Conv<2>;
using Conv3d = Conv<3>;

/// How to build a Conv (torch.nn.ConvNd's arguments, in its order).
template <std::size_t N>
struct ConvConfig {
  int64_t in_channels;
  int64_t out_channels;
  ops::Dims kernel_size;  ///< >= 1, one value or N
  ops::Dims stride{1};    ///< >= 1
  ops::Dims padding{0};   ///< >= 0, zeros on both sides
  ops::Dims dilation{1};  ///< >= 1
  int64_t groups = 1;     ///< divides in_channels and out_channels
  bool bias = true;
  /// Unset: PyTorch's defaults (default_weight_init, default_bias_init of the weight's fan_in).
  std::optional<Initializer> weight_init = std::nullopt;
  std::optional<Initializer> bias_init = std::nullopt;

  /// InvalidArgument "[Conv2d] ..." naming the option for a channel count < 1, groups that do not
  /// divide both channel counts, or a per-dim option of the wrong length or range.
  Conv<N> init(const Device& device) const;
};
using Conv1dConfig = ConvConfig<1>;
using Conv2dConfig = ConvConfig<2>;
using Conv3dConfig = ConvConfig<3>;

/// A transposed convolution over N spatial dims: weight [in_channels, out_channels / groups,
/// *kernel_size], bias [out_channels].
template <std::size_t N>
struct ConvTranspose {
  static_assert(N >= 1 && N <= 3, "transposed convolutions have 1 to 3 spatial dims");
  Param<N + 2> weight;
  std::optional<Param<1>> bias;
  module::ConvTransposeOptions options;
  EMBER_MODULE(weight, bias)

  /// x [batch, in_channels, *in] → [batch, out_channels, *out] (sizes as ops::conv_transpose).
  Tensor<N + 2> forward(const Tensor<N + 2>& x) const {
    return Tensor<N + 2>(
        ops::conv_transpose(x.handle(), weight.handle(), optional_handle(bias), options));
  }
};
using ConvTranspose1d = ConvTranspose<1>;
using ConvTranspose2d = ConvTranspose<2>;
using ConvTranspose3d = ConvTranspose<3>;

/// How to build a ConvTranspose (torch.nn.ConvTransposeNd's arguments, in its order).
template <std::size_t N>
struct ConvTransposeConfig {
  int64_t in_channels;
  int64_t out_channels;
  ops::Dims kernel_size;        ///< >= 1, one value or N
  ops::Dims stride{1};          ///< >= 1
  ops::Dims padding{0};         ///< >= 0, removed from both sides of the output
  ops::Dims output_padding{0};  ///< >= 0, added to one side; below stride or dilation
  int64_t groups = 1;           ///< divides in_channels and out_channels
  bool bias = true;
  ops::Dims dilation{1};  ///< >= 1
  /// Unset: PyTorch's defaults (default_weight_init, default_bias_init of the weight's fan_in,
  /// which for this layout is out_channels / groups * prod(kernel_size)).
  std::optional<Initializer> weight_init = std::nullopt;
  std::optional<Initializer> bias_init = std::nullopt;

  /// InvalidArgument "[ConvTranspose2d] ..." as ConvConfig's, and for an output_padding not below
  /// its dim's stride or dilation.
  ConvTranspose<N> init(const Device& device) const;
};
using ConvTranspose1dConfig = ConvTransposeConfig<1>;
using ConvTranspose2dConfig = ConvTransposeConfig<2>;
using ConvTranspose3dConfig = ConvTransposeConfig<3>;

}  // namespace ember::nn
