// Pooling layers (torch.nn.MaxPool1d/2d, AvgPool1d/2d, AdaptiveAvgPool1d/2d: options and
// defaults), on ember::module's pooling. They have no params: their options are all they hold.
//
// Per-dim options hold one value for every spatial dim or one per spatial dim:
//
//   nn::MaxPool2d pool = nn::MaxPool2dConfig{.kernel_size = {2}}.init(device);
//   Tensor<4> y = pool.forward(x);  // x [N, C, H, W] → [N, C, H / 2, W / 2]
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "ember/nn/stateless.h"
#include "ember/pooling.h"

namespace ember::nn {

/// Max pooling over N spatial dims.
template <std::size_t N>
struct MaxPool {
  static_assert(N >= 1 && N <= 3, "pooling has 1 to 3 spatial dims");
  module::MaxPoolOptions options;
  EMBER_MODULE()

  /// x [batch, C, *in] → [batch, C, *out] (sizes as ops::max_pool).
  Tensor<N + 2> forward(const Tensor<N + 2>& x) const {
    return Tensor<N + 2>(ops::max_pool(x.handle(), options));
  }
};
using MaxPool1d = MaxPool<1>;
using MaxPool2d = MaxPool<2>;

/// How to build a MaxPool (torch.nn.MaxPoolNd's arguments, in its order).
template <std::size_t N>
struct MaxPoolConfig {
  ops::Dims kernel_size;  ///< >= 1, one value or N
  ops::Dims stride{};     ///< >= 1; empty: kernel_size
  ops::Dims padding{0};   ///< >= 0 and <= kernel_size / 2
  ops::Dims dilation{1};  ///< >= 1
  bool ceil_mode = false;

  /// InvalidArgument "[MaxPool2d] ..." naming a per-dim option of the wrong length or range.
  MaxPool<N> init(const Device& device) const;
};
using MaxPool1dConfig = MaxPoolConfig<1>;
using MaxPool2dConfig = MaxPoolConfig<2>;

/// Average pooling over N spatial dims.
template <std::size_t N>
struct AvgPool {
  static_assert(N >= 1 && N <= 3, "pooling has 1 to 3 spatial dims");
  module::AvgPoolOptions options;
  EMBER_MODULE()

  /// x [batch, C, *in] → [batch, C, *out] (sizes as ops::avg_pool).
  Tensor<N + 2> forward(const Tensor<N + 2>& x) const {
    return Tensor<N + 2>(ops::avg_pool(x.handle(), options));
  }
};
using AvgPool1d = AvgPool<1>;
using AvgPool2d = AvgPool<2>;

/// How to build an AvgPool (torch.nn.AvgPoolNd's arguments, in its order).
template <std::size_t N>
struct AvgPoolConfig {
  ops::Dims kernel_size;  ///< >= 1, one value or N
  ops::Dims stride{};     ///< >= 1; empty: kernel_size
  ops::Dims padding{0};   ///< >= 0 and <= kernel_size / 2
  bool ceil_mode = false;
  bool count_include_pad = true;                           ///< padding counts in the divisor
  std::optional<int64_t> divisor_override = std::nullopt;  ///< >= 1: every window's divisor

  /// InvalidArgument "[AvgPool2d] ..." naming a per-dim option of the wrong length or range, or a
  /// divisor_override below 1.
  AvgPool<N> init(const Device& device) const;
};
using AvgPool1dConfig = AvgPoolConfig<1>;
using AvgPool2dConfig = AvgPoolConfig<2>;

/// Average pooling to a fixed output size over N spatial dims (windows as
/// ops::adaptive_avg_pool).
template <std::size_t N>
struct AdaptiveAvgPool {
  static_assert(N >= 1 && N <= 3, "pooling has 1 to 3 spatial dims");
  ops::Dims output_size;  ///< one value or N
  EMBER_MODULE()

  /// x [batch, C, *in] → [batch, C, *output_size].
  Tensor<N + 2> forward(const Tensor<N + 2>& x) const {
    return Tensor<N + 2>(ops::adaptive_avg_pool(x.handle(), output_size));
  }
};
using AdaptiveAvgPool1d = AdaptiveAvgPool<1>;
using AdaptiveAvgPool2d = AdaptiveAvgPool<2>;

/// How to build an AdaptiveAvgPool: `nn::AdaptiveAvgPool2dConfig{{1}}` averages each channel.
template <std::size_t N>
struct AdaptiveAvgPoolConfig {
  ops::Dims output_size;  ///< >= 1, one value or N

  /// InvalidArgument "[AdaptiveAvgPool2d] output_size ..." for the wrong length or a size < 1.
  AdaptiveAvgPool<N> init(const Device& device) const;
};
using AdaptiveAvgPool1dConfig = AdaptiveAvgPoolConfig<1>;
using AdaptiveAvgPool2dConfig = AdaptiveAvgPoolConfig<2>;

}  // namespace ember::nn
