#include "ember/nn/linear.h"

#include <string>

#include "ember/error.h"

namespace ember::nn {

Linear LinearConfig::init(const Device& device) const {
  if (in_features < 1 || out_features < 1) {
    throw InvalidArgument("[Linear] in_features " + std::to_string(in_features) +
                          " and out_features " + std::to_string(out_features) +
                          " must both be >= 1");
  }
  Linear linear;
  linear.weight = Param<2>(
      weight_init.value_or(default_weight_init()).make<2>({out_features, in_features}, device));
  if (bias) {
    linear.bias = Param<1>(
        bias_init.value_or(default_bias_init(in_features)).make<1>({out_features}, device));
  }
  return linear;
}

}  // namespace ember::nn
