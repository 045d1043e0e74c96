// Checks shared by the rules of the spatial ops that resample x [N, C, *spatial] (pooling,
// interpolation): the input's layout and the per-spatial-dim parameters. Messages follow the
// other rules: "[max_pool2d] stride [0, 1] must be >= 1".
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "ir/rules.h"

namespace ember::ir::rules {

/// Requires shape to be [N, C, *spatial] with 1 to 3 spatial dims, each >= 1 (N and C may be 0:
/// an empty batch resamples to an empty batch); returns the number of spatial dims. role names
/// the shape in messages ("x", "input_shape").
std::size_t check_spatial_shape(const Op& op, std::string_view role, const Shape& shape);

/// Requires one value per spatial dim, each >= minimum: "kernel [2, 0] must be >= 1".
void check_per_dim(const Op& op, std::string_view what, std::span<const int64_t> values,
                   std::size_t spatial_dims, int64_t minimum);

/// shape's N and C followed by spatial, checked as a new shape (its element count fits int64).
Shape with_spatial(const Op& op, const Shape& shape, std::span<const int64_t> spatial);

/// The number of elements of shape's spatial dims (dims 2 and on).
int64_t spatial_size(const Shape& shape);

/// The output of a gradient op that undoes a resampling of an input of input_shape whose output
/// is forward_output: requires grad_output to have that shape; returns input_shape in
/// grad_output's dtype.
Outputs input_gradient(const Op& op, const TensorMeta& grad_output, const Shape& input_shape,
                       const Shape& forward_output);

}  // namespace ember::ir::rules
