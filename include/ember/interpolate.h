// Resampling (torch.nn.functional.interpolate: modes nearest, linear, bilinear, trilinear,
// bicubic; align_corners; size or scale_factor) in ember::module, as one ir op
// (ir::Interpolate) with a gradient op of its own.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ember/functional_common.h"
#include "ember/tensor.h"

namespace ember::module {

/// PyTorch's modes. Linear needs 1 spatial dim, Bilinear and Bicubic 2, Trilinear 3; Nearest
/// takes 1 to 3.
enum class InterpolateMode { Nearest, Linear, Bilinear, Trilinear, Bicubic };

/// Exactly one of size and scale_factor is set.
struct InterpolateOptions {
  std::optional<ops::Dims> size =
      std::nullopt;  ///< output spatial size: one for all dims, or one per dim
  /// > 0: output size floor(in * scale), and the scale is used to map coordinates (PyTorch's
  /// rule with recompute_scale_factor unset). One for all dims, or one per dim.
  std::optional<std::vector<double>> scale_factor = std::nullopt;
  InterpolateMode mode = InterpolateMode::Nearest;
  /// Linear modes and Bicubic only: corners of input and output align (PyTorch's flag).
  bool align_corners = false;
};

}  // namespace ember::module

namespace ember::ops {

/// Resamples the spatial dims of x [N, C, *in] (Float, 1 to 3 spatial dims) → [N, C, *out].
TensorHandle interpolate(const TensorHandle& x, const module::InterpolateOptions& options);

}  // namespace ember::ops

namespace ember::module {

/// x [N, C, *in] → [N, C, *out] (rank 3 to 5).
template <std::size_t D>
Tensor<D> interpolate(const Tensor<D>& x, const InterpolateOptions& options) {
  static_assert(D >= 3 && D <= 5, "interpolate takes [N, C, *spatial] with 1 to 3 spatial dims");
  return Tensor<D>(ops::interpolate(x.handle(), options));
}

}  // namespace ember::module
