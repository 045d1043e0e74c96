#include "config_checks.h"

#include <cmath>

#include "ember/shape.h"

namespace ember::nn::detail {

std::string spatial_layer_name(std::string_view family, std::size_t spatial_dims) {
  return std::string(family) + std::to_string(spatial_dims) + "d";
}

void require_at_least(std::string_view layer, std::string_view what, int64_t value, int64_t min) {
  if (value < min) fail(layer, what, ' ', value, " must be >= ", min);
}

void require_per_dim(std::string_view layer, std::string_view what, const ops::Dims& values,
                     std::size_t spatial_dims, int64_t min) {
  if (values.size() != 1 && values.size() != spatial_dims) {
    fail(layer, what, ' ', Shape(values), " must hold 1 or ", spatial_dims, " values");
  }
  for (int64_t v : values) {
    if (v < min) fail(layer, what, ' ', Shape(values), " must hold values >= ", min);
  }
}

int64_t per_dim_value(const ops::Dims& values, std::size_t i) {
  return values.size() == 1 ? values[0] : values[i];
}

void require_finite(std::string_view layer, std::string_view what, double value) {
  if (!std::isfinite(value)) fail(layer, what, ' ', value, " must be finite");
}

void require_non_negative(std::string_view layer, std::string_view what, double value) {
  if (!(std::isfinite(value) && value >= 0.0))
    fail(layer, what, ' ', value, " must be finite and >= 0");
}

}  // namespace ember::nn::detail
