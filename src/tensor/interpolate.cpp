// ops::interpolate: one ir::Interpolate. Here: x's kind and layout, the mode against x's spatial
// rank, exactly one of size and scale_factor, and the output size a scale factor gives
// (floor(in * scale), PyTorch's rule with recompute_scale_factor unset: the scale itself still
// maps coordinates). Ranges of the lowered op are ir::infer's.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "ember/interpolate.h"
#include "tensor/check.h"
#include "tensor/dispatch.h"

namespace ember::ops {
namespace {

using module::InterpolateMode;
using module::InterpolateOptions;
using tensor::fail;

constexpr std::string_view kName = "interpolate";

/// The mode's name as PyTorch spells it, and the spatial rank it needs (0: 1 to 3).
struct ModeInfo {
  std::string_view name;
  std::size_t spatial_dims;
  ir::InterpolateMode lowered;
};

ModeInfo mode_info(InterpolateMode mode) {
  switch (mode) {
    case InterpolateMode::Nearest:
      return {"nearest", 0, ir::InterpolateMode::Nearest};
    case InterpolateMode::Linear:
      return {"linear", 1, ir::InterpolateMode::Linear};
    case InterpolateMode::Bilinear:
      return {"bilinear", 2, ir::InterpolateMode::Linear};
    case InterpolateMode::Trilinear:
      return {"trilinear", 3, ir::InterpolateMode::Linear};
    case InterpolateMode::Bicubic:
      return {"bicubic", 2, ir::InterpolateMode::Cubic};
  }
  fail(kName, "unknown mode ", static_cast<int>(mode));
}

void check_mode(const ModeInfo& mode, bool align_corners, const TensorHandle& x,
                std::size_t spatial_dims) {
  if (mode.spatial_dims != 0 && mode.spatial_dims != spatial_dims) {
    fail(kName, "mode ", mode.name, " needs ", mode.spatial_dims, " spatial dim",
         mode.spatial_dims == 1 ? "" : "s", " (x of rank ", mode.spatial_dims + 2, "), got x ",
         x.shape());
  }
  if (align_corners && mode.lowered == ir::InterpolateMode::Nearest) {
    fail(kName,
         "align_corners is for the linear, bilinear, trilinear and bicubic modes only, "
         "not ",
         mode.name);
  }
}

/// scale_factor expanded to one value per spatial dim, each finite and > 0.
std::vector<double> scales_of(const std::vector<double>& scale_factor, std::size_t spatial_dims) {
  if (scale_factor.size() != 1 && scale_factor.size() != spatial_dims) {
    fail(kName, "scale_factor has ", scale_factor.size(), " values; expected 1 or ", spatial_dims,
         " (one per spatial dim)");
  }
  std::vector<double> scales(spatial_dims, scale_factor.front());
  if (scale_factor.size() == spatial_dims) scales = scale_factor;
  for (double scale : scales) {
    if (!(std::isfinite(scale) && scale > 0.0)) {
      fail(kName, "scale_factor ", scale, " must be finite and > 0");
    }
  }
  return scales;
}

/// floor(in * scale) for each spatial dim of x, required >= 1 and to fit int64.
Dims scaled_size(const TensorHandle& x, const std::vector<double>& scales) {
  Dims size;
  for (std::size_t dim = 0; dim < scales.size(); ++dim) {
    const int64_t in = x.shape()[dim + 2];
    const double out = std::floor(static_cast<double>(in) * scales[dim]);
    if (out < 1.0 || out >= 0x1p63) {
      fail(kName, "scale_factor ", scales[dim], " gives output size ", out, " for spatial dim ",
           dim, " of size ", in, "; it must be >= 1 and fit int64");
    }
    size.push_back(static_cast<int64_t>(out));
  }
  return size;
}

/// The output size and the scales that map coordinates (none when size is given).
ir::Interpolate lowered(const TensorHandle& x, const InterpolateOptions& options,
                        const ModeInfo& mode, std::size_t spatial_dims) {
  if (options.size.has_value() == options.scale_factor.has_value()) {
    fail(kName, "expects exactly one of size and scale_factor");
  }
  if (options.size) {
    return {mode.lowered,
            tensor::per_spatial_dim(*options.size, spatial_dims, "size", kName),
            options.align_corners,
            {}};
  }
  std::vector<double> scales = scales_of(*options.scale_factor, spatial_dims);
  return {mode.lowered, scaled_size(x, scales), options.align_corners, std::move(scales)};
}

}  // namespace

TensorHandle interpolate(const TensorHandle& x, const InterpolateOptions& options) {
  tensor::require(x, tensor::KindRule::Float, kName);
  const std::size_t spatial_dims = tensor::spatial_dims_of(x, kName);
  const ModeInfo mode = mode_info(options.mode);
  check_mode(mode, options.align_corners, x, spatial_dims);
  return tensor::run_one(lowered(x, options, mode, spatial_dims), {x});
}

}  // namespace ember::ops
