// Pooling (torch.nn.functional's max_pool1d/2d, avg_pool1d/2d, adaptive_avg_pool1d/2d,
// adaptive_max_pool2d: names, output sizes, index convention and defaults) in ember::module. Each
// is one ir op (ir::Pool, ir::AdaptivePool) that a backend runs with its own kernel; autodiff
// records it (max pooling's gradient goes to the position its index names).
//
// x is [N, C, *spatial] (batched only). Per-dim options hold one value for every spatial dim or
// one per spatial dim.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <utility>

#include "ember/functional_common.h"
#include "ember/tensor.h"

namespace ember::module {

/// Options of max pooling (defaults as PyTorch's).
struct MaxPoolOptions {
  ops::Dims kernel_size;  ///< >= 1 (required)
  ops::Dims stride{};     ///< empty: kernel_size
  ops::Dims padding{0};   ///< <= kernel_size / 2; padding never wins
  ops::Dims dilation{1};
  bool ceil_mode = false;
};
/// Options of average pooling (defaults as PyTorch's).
struct AvgPoolOptions {
  ops::Dims kernel_size;  ///< >= 1 (required)
  ops::Dims stride{};     ///< empty: kernel_size
  ops::Dims padding{0};   ///< <= kernel_size / 2
  bool ceil_mode = false;
  bool count_include_pad = true;                           ///< padding counts in the divisor
  std::optional<int64_t> divisor_override = std::nullopt;  ///< >= 1: divide every window by this
};

}  // namespace ember::module

namespace ember::ops {

/// Max pooling of x [N, C, *in] (1 to 3 spatial dims; numeric) → [N, C, *out].
TensorHandle max_pool(const TensorHandle& x, const module::MaxPoolOptions& options);
/// max_pool and the index of each maximum in x's flattened spatial dims (an Int tensor of the
/// device's index dtype), as PyTorch's return_indices.
std::pair<TensorHandle, TensorHandle> max_pool_with_indices(const TensorHandle& x,
                                                            const module::MaxPoolOptions& options);
/// Average pooling of x [N, C, *in] (Float) → [N, C, *out].
TensorHandle avg_pool(const TensorHandle& x, const module::AvgPoolOptions& options);
/// Average over adaptive windows: output cell i of a dim covers [floor(i in / out),
/// ceil((i + 1) in / out)). output_size has one entry per spatial dim (or one for all).
TensorHandle adaptive_avg_pool(const TensorHandle& x, const Dims& output_size);
/// Maximum over the adaptive windows, with the indices as max_pool_with_indices.
std::pair<TensorHandle, TensorHandle> adaptive_max_pool_with_indices(const TensorHandle& x,
                                                                     const Dims& output_size);

}  // namespace ember::ops

namespace ember::module {

/// x [N, C, L] → [N, C, L'].
template <typename K = Float>
Tensor<3, K> max_pool1d(const Tensor<3, K>& x, const MaxPoolOptions& options) {
  return Tensor<3, K>(ops::max_pool(x.handle(), options));
}
/// x [N, C, H, W] → [N, C, H', W'].
template <typename K = Float>
Tensor<4, K> max_pool2d(const Tensor<4, K>& x, const MaxPoolOptions& options) {
  return Tensor<4, K>(ops::max_pool(x.handle(), options));
}
/// max_pool1d and the flattened index of each maximum.
template <typename K = Float>
std::pair<Tensor<3, K>, Tensor<3, Int>> max_pool1d_with_indices(const Tensor<3, K>& x,
                                                                const MaxPoolOptions& options) {
  auto [values, indices] = ops::max_pool_with_indices(x.handle(), options);
  return {Tensor<3, K>(values), Tensor<3, Int>(indices)};
}
/// max_pool2d and the index of each maximum in the flattened H * W plane.
template <typename K = Float>
std::pair<Tensor<4, K>, Tensor<4, Int>> max_pool2d_with_indices(const Tensor<4, K>& x,
                                                                const MaxPoolOptions& options) {
  auto [values, indices] = ops::max_pool_with_indices(x.handle(), options);
  return {Tensor<4, K>(values), Tensor<4, Int>(indices)};
}
/// x [N, C, L] → [N, C, L'].
inline Tensor<3> avg_pool1d(const Tensor<3>& x, const AvgPoolOptions& options) {
  return Tensor<3>(ops::avg_pool(x.handle(), options));
}
/// x [N, C, H, W] → [N, C, H', W'].
inline Tensor<4> avg_pool2d(const Tensor<4>& x, const AvgPoolOptions& options) {
  return Tensor<4>(ops::avg_pool(x.handle(), options));
}
/// x [N, C, L] → [N, C, output_size].
inline Tensor<3> adaptive_avg_pool1d(const Tensor<3>& x, int64_t output_size) {
  return Tensor<3>(ops::adaptive_avg_pool(x.handle(), {output_size}));
}
/// x [N, C, H, W] → [N, C, output_size[0], output_size[1]].
inline Tensor<4> adaptive_avg_pool2d(const Tensor<4>& x,
                                     const std::array<int64_t, 2>& output_size) {
  return Tensor<4>(ops::adaptive_avg_pool(x.handle(), detail::dims_of(output_size)));
}
/// x [N, C, H, W] → [N, C, output_size[0], output_size[1]].
template <typename K = Float>
Tensor<4, K> adaptive_max_pool2d(const Tensor<4, K>& x, const std::array<int64_t, 2>& output_size) {
  return Tensor<4, K>(
      ops::adaptive_max_pool_with_indices(x.handle(), detail::dims_of(output_size)).first);
}
/// adaptive_max_pool2d and the index of each maximum in the flattened H * W plane.
template <typename K = Float>
std::pair<Tensor<4, K>, Tensor<4, Int>> adaptive_max_pool2d_with_indices(
    const Tensor<4, K>& x, const std::array<int64_t, 2>& output_size) {
  auto [values, indices] =
      ops::adaptive_max_pool_with_indices(x.handle(), detail::dims_of(output_size));
  return {Tensor<4, K>(values), Tensor<4, Int>(indices)};
}

}  // namespace ember::module
