// Checks shared by the layer configs (`<Name>Config::init`): a bad option becomes an
// InvalidArgument whose message starts with the layer's name in brackets ("[Conv2d] ") and names
// the option and its value, before any tensor is made.
#pragma once

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>

#include "ember/error.h"
#include "ember/tensor_ops.h"

namespace ember::nn::detail {

/// Throws InvalidArgument "[layer] " followed by parts, each written with operator<<.
template <typename... Parts>
[[noreturn]] void fail(std::string_view layer, const Parts&... parts) {
  std::ostringstream message;
  message << '[' << layer << "] ";
  (message << ... << parts);
  throw InvalidArgument(message.str());
}

/// The name of a layer over spatial dims: ("Conv", 2) → "Conv2d".
std::string spatial_layer_name(std::string_view family, std::size_t spatial_dims);

/// "[layer] what value must be >= min" unless value >= min.
void require_at_least(std::string_view layer, std::string_view what, int64_t value, int64_t min);

/// A per-dim option (one value for every spatial dim, or one per dim) checked against
/// spatial_dims, each value >= min.
void require_per_dim(std::string_view layer, std::string_view what, const ops::Dims& values,
                     std::size_t spatial_dims, int64_t min);

/// The value a per-dim option (already checked) gives spatial dim i.
int64_t per_dim_value(const ops::Dims& values, std::size_t i);

/// "[layer] what value must be finite" unless it is.
void require_finite(std::string_view layer, std::string_view what, double value);
/// "[layer] what value must be finite and >= 0" unless it is (an eps).
void require_non_negative(std::string_view layer, std::string_view what, double value);
/// "[layer] what p must be in [0, 1)" unless p is a dropout probability.
inline void require_probability(std::string_view layer, std::string_view what, double p) {
  if (!(p >= 0.0 && p < 1.0)) fail(layer, what, ' ', p, " must be in [0, 1)");
}

}  // namespace ember::nn::detail
