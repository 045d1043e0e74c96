// Rules of resampling: Interpolate and its gradient op InterpolateGrad, which checks the
// Interpolate it undoes. The mode must suit the spatial rank (cubic is bicubic: 2 dims only) and
// scale factors must be finite and positive, so that every source coordinate is a number.
#include <cmath>
#include <cstddef>
#include <string_view>
#include <vector>

#include "ir/op_rules.h"
#include "ir/spatial_checks.h"

namespace ember::ir::rules {
namespace {

void check_mode(const Interpolate& interpolate, const Op& op, std::size_t spatial_dims) {
  require(interpolate.mode <= InterpolateMode::Cubic, op, "unknown mode ",
          static_cast<int>(interpolate.mode));
  require(interpolate.mode != InterpolateMode::Cubic || spatial_dims == 2, op,
          "cubic mode needs 2 spatial dims (bicubic), got ", spatial_dims);
  require(!interpolate.align_corners || interpolate.mode != InterpolateMode::Nearest, op,
          "align_corners is for the linear and cubic modes only");
}

void check_scales(const Interpolate& interpolate, const Op& op, std::size_t spatial_dims) {
  const std::vector<double>& scales = interpolate.scales;
  require(scales.empty() || scales.size() == spatial_dims, op, "scales has ", scales.size(),
          " values; expected none or ", spatial_dims, " (one per spatial dim)");
  for (std::size_t dim = 0; dim < scales.size(); ++dim) {
    require(std::isfinite(scales[dim]) && scales[dim] > 0.0, op, "scale ", scales[dim],
            " of spatial dim ", dim, " must be finite and > 0");
  }
}

/// Interpolate's output for x, after every check; role names x in messages.
TensorMeta interpolated(const Interpolate& interpolate, const Op& op, const TensorMeta& x,
                        std::string_view role) {
  check_dtype(op, x.dtype, kFloatDTypes);
  const std::size_t spatial_dims = check_spatial_shape(op, role, x.shape);
  check_mode(interpolate, op, spatial_dims);
  check_per_dim(op, "size", interpolate.size, spatial_dims, 1);
  check_scales(interpolate, op, spatial_dims);
  return {with_spatial(op, x.shape, interpolate.size), x.dtype};
}

}  // namespace

Outputs infer_rule(const Interpolate& interpolate, const Op& op, Inputs inputs) {
  check_arity(op, inputs, 1);
  return {interpolated(interpolate, op, inputs[0], "x")};
}

Outputs infer_rule(const InterpolateGrad& grad, const Op& op, Inputs inputs) {
  check_arity(op, inputs, 1);
  check_new_shape(op, grad.input_shape);
  const TensorMeta x{grad.input_shape, inputs[0].dtype};
  return input_gradient(op, inputs[0], x.shape,
                        interpolated(grad.interpolate, op, x, "input_shape").shape);
}

}  // namespace ember::ir::rules
