#include "ember/nn/activation.h"

#include "config_checks.h"

namespace ember::nn {
namespace {

/// "[layer] what value must be finite and non-zero" unless it is (a divisor of the formula).
void require_finite_non_zero(std::string_view layer, std::string_view what, double value) {
  detail::require_finite(layer, what, value);
  if (value == 0.0) detail::fail(layer, what, ' ', value, " must be non-zero");
}

}  // namespace

LeakyRelu LeakyReluConfig::init(const Device& /*device*/) const {
  detail::require_finite("LeakyRelu", "negative_slope", negative_slope);
  return {negative_slope};
}

Gelu GeluConfig::init(const Device& /*device*/) const {
  return {approximate};
}

Softplus SoftplusConfig::init(const Device& /*device*/) const {
  require_finite_non_zero("Softplus", "beta", beta);
  return {beta};
}

Elu EluConfig::init(const Device& /*device*/) const {
  detail::require_finite("Elu", "alpha", alpha);
  return {alpha};
}

Celu CeluConfig::init(const Device& /*device*/) const {
  require_finite_non_zero("Celu", "alpha", alpha);
  return {alpha};
}

Prelu PreluConfig::init(const Device& device) const {
  detail::require_at_least("Prelu", "num_parameters", num_parameters, 1);
  detail::require_finite("Prelu", "init_value", init_value);
  return {Param<1>(Tensor<1>::full({num_parameters}, init_value, device))};
}

Softmax SoftmaxConfig::init(const Device& /*device*/) const {
  return {dim};
}

LogSoftmax LogSoftmaxConfig::init(const Device& /*device*/) const {
  return {dim};
}

}  // namespace ember::nn
