#include "ember/nn/dropout.h"

#include "config_checks.h"

namespace ember::nn {

Dropout DropoutConfig::init(const Device& /*device*/) const {
  detail::require_probability("Dropout", "p", p);
  return {p};
}

}  // namespace ember::nn
