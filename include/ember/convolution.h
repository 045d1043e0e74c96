// Convolutions (torch.nn.functional's conv1d/2d/3d and conv_transpose1d/2d/3d: names, layouts,
// output sizes and defaults) in ember::module. Each is one ir op (ir::Conv), so a backend can run
// it with its own kernel (a tuned library on the fast backends); autodiff records it and its
// gradients are ops of their own (a transposed convolution for the input, a weight-gradient op).
//
// x is [N, C_in, *spatial] (batched only). Per-dim options hold one value for every spatial dim
// or one value per spatial dim: {.stride = {2}} and {.stride = {2, 1}} both work for conv2d.
#pragma once

#include <cstdint>
#include <optional>

#include "ember/functional_common.h"
#include "ember/tensor.h"

namespace ember::module {

/// Options of a convolution (defaults as PyTorch's).
struct ConvOptions {
  ops::Dims stride{1};    ///< >= 1
  ops::Dims padding{0};   ///< >= 0, zeros on both sides
  ops::Dims dilation{1};  ///< >= 1
  int64_t groups = 1;     ///< divides C_in and C_out
};
/// Options of a transposed convolution (defaults as PyTorch's).
struct ConvTransposeOptions {
  ops::Dims stride{1};
  ops::Dims padding{0};         ///< removed from both sides of the output
  ops::Dims output_padding{0};  ///< added to one side of the output; < stride or < dilation
  ops::Dims dilation{1};
  int64_t groups = 1;
};

}  // namespace ember::module

namespace ember::ops {

/// Convolution of x [N, C_in, *in] (1 to 3 spatial dims) with weight [C_out, C_in / groups,
/// *kernel], plus bias [C_out] when given. Output [N, C_out, *out], out = floor((in + 2 padding
/// - dilation (kernel - 1) - 1) / stride) + 1, which must be >= 1. Float tensors; x, weight and
/// bias are promoted to one dtype.
TensorHandle conv(const TensorHandle& x, const TensorHandle& weight, const OptionalHandle& bias,
                  const module::ConvOptions& options);
/// Transposed convolution (the gradient of conv with respect to its input) of x [N, C_in, *in]
/// with weight [C_in, C_out / groups, *kernel], plus bias [C_out]. Output [N, C_out, *out],
/// out = (in - 1) stride - 2 padding + dilation (kernel - 1) + output_padding + 1 (>= 1).
TensorHandle conv_transpose(const TensorHandle& x, const TensorHandle& weight,
                            const OptionalHandle& bias,
                            const module::ConvTransposeOptions& options);

}  // namespace ember::ops

namespace ember::module {

namespace detail {
template <std::size_t D>
Tensor<D> conv_n(const Tensor<D>& x, const Tensor<D>& weight, const std::optional<Tensor<1>>& bias,
                 const ConvOptions& options) {
  return Tensor<D>(ops::conv(x.handle(), weight.handle(), handle_of(bias), options));
}
template <std::size_t D>
Tensor<D> conv_transpose_n(const Tensor<D>& x, const Tensor<D>& weight,
                           const std::optional<Tensor<1>>& bias,
                           const ConvTransposeOptions& options) {
  return Tensor<D>(ops::conv_transpose(x.handle(), weight.handle(), handle_of(bias), options));
}
}  // namespace detail

/// x [N, C_in, L], weight [C_out, C_in / groups, K], bias [C_out] → [N, C_out, L_out].
inline Tensor<3> conv1d(const Tensor<3>& x, const Tensor<3>& weight,
                        const std::optional<Tensor<1>>& bias = std::nullopt,
                        const ConvOptions& options = {}) {
  return detail::conv_n(x, weight, bias, options);
}
/// x [N, C_in, H, W], weight [C_out, C_in / groups, KH, KW], bias [C_out] → [N, C_out, H', W'].
inline Tensor<4> conv2d(const Tensor<4>& x, const Tensor<4>& weight,
                        const std::optional<Tensor<1>>& bias = std::nullopt,
                        const ConvOptions& options = {}) {
  return detail::conv_n(x, weight, bias, options);
}
/// x [N, C_in, D, H, W], weight [C_out, C_in / groups, KD, KH, KW], bias [C_out].
inline Tensor<5> conv3d(const Tensor<5>& x, const Tensor<5>& weight,
                        const std::optional<Tensor<1>>& bias = std::nullopt,
                        const ConvOptions& options = {}) {
  return detail::conv_n(x, weight, bias, options);
}
/// x [N, C_in, L], weight [C_in, C_out / groups, K], bias [C_out] → [N, C_out, L_out].
inline Tensor<3> conv_transpose1d(const Tensor<3>& x, const Tensor<3>& weight,
                                  const std::optional<Tensor<1>>& bias = std::nullopt,
                                  const ConvTransposeOptions& options = {}) {
  return detail::conv_transpose_n(x, weight, bias, options);
}
/// x [N, C_in, H, W], weight [C_in, C_out / groups, KH, KW], bias [C_out].
inline Tensor<4> conv_transpose2d(const Tensor<4>& x, const Tensor<4>& weight,
                                  const std::optional<Tensor<1>>& bias = std::nullopt,
                                  const ConvTransposeOptions& options = {}) {
  return detail::conv_transpose_n(x, weight, bias, options);
}
/// x [N, C_in, D, H, W], weight [C_in, C_out / groups, KD, KH, KW], bias [C_out].
inline Tensor<5> conv_transpose3d(const Tensor<5>& x, const Tensor<5>& weight,
                                  const std::optional<Tensor<1>>& bias = std::nullopt,
                                  const ConvTransposeOptions& options = {}) {
  return detail::conv_transpose_n(x, weight, bias, options);
}

}  // namespace ember::module
