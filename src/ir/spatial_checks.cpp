#include "ir/spatial_checks.h"

#include <utility>

namespace ember::ir::rules {

std::size_t check_spatial_shape(const Op& op, std::string_view role, const Shape& shape) {
  require(shape.rank() >= 3 && shape.rank() <= 5, op, "expects ", role,
          " of shape [N, C, *spatial] with 1 to 3 spatial dims, got ", shape);
  for (std::size_t i = 2; i < shape.rank(); ++i)
    require(shape[i] >= 1, op, role, ' ', shape, " has an empty spatial dim");
  return shape.rank() - 2;
}

void check_per_dim(const Op& op, std::string_view what, std::span<const int64_t> values,
                   std::size_t spatial_dims, int64_t minimum) {
  require(values.size() == spatial_dims, op, what, ' ', List{values}, " has ", values.size(),
          " values; expected ", spatial_dims, " (one per spatial dim)");
  for (int64_t value : values)
    require(value >= minimum, op, what, ' ', List{values}, " must be >= ", minimum);
}

Shape with_spatial(const Op& op, const Shape& shape, std::span<const int64_t> spatial) {
  std::vector<int64_t> dims{shape[0], shape[1]};
  dims.insert(dims.end(), spatial.begin(), spatial.end());
  Shape out(std::move(dims));
  check_new_shape(op, out);
  return out;
}

int64_t spatial_size(const Shape& shape) {
  int64_t size = 1;
  for (std::size_t i = 2; i < shape.rank(); ++i)
    size *= shape[i];
  return size;
}

Outputs input_gradient(const Op& op, const TensorMeta& grad_output, const Shape& input_shape,
                       const Shape& forward_output) {
  check_same_shape(op, "grad_output", grad_output.shape, "forward output", forward_output);
  return {{input_shape, grad_output.dtype}};
}

}  // namespace ember::ir::rules
