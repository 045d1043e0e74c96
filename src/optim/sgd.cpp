#include "ember/optim/sgd.h"

#include "checks.h"
#include "update_math.h"

namespace ember::optim {

Sgd SgdConfig::init() const {
  return Sgd(*this);
}

Sgd::Sgd(const SgdConfig& config) : config_(config) {
  detail::check_non_negative(name(), "momentum", config.momentum);
  detail::check_finite(name(), "dampening", config.dampening);
  detail::check_non_negative(name(), "weight_decay", config.weight_decay);
  if (config.nesterov && (config.momentum <= 0 || config.dampening != 0)) {
    detail::fail(name(), "nesterov needs momentum > 0 and dampening 0, got momentum " +
                             detail::format_number(config.momentum) + " and dampening " +
                             detail::format_number(config.dampening));
  }
}

StateSlots Sgd::slots() const {
  if (config_.momentum == 0) return {};
  return {{"momentum_buffer"}, {}};
}

TensorHandle Sgd::update(const std::string& name, const TensorHandle& param,
                         const TensorHandle& grad, double lr) {
  TensorHandle direction =
      config_.weight_decay != 0 ? detail::add_scaled(grad, param, config_.weight_decay) : grad;
  if (config_.momentum != 0) {
    ParamState& state = state_of(name);
    const auto previous = state.tensors.find("momentum_buffer");
    // The buffer starts as the first direction itself, undamped (as PyTorch's).
    const TensorHandle buffer =
        previous == state.tensors.end()
            ? direction
            : detail::add_scaled(ops::mul_scalar(previous->second, config_.momentum), direction,
                                 1.0 - config_.dampening);
    state.tensors["momentum_buffer"] = buffer;
    direction = config_.nesterov ? detail::add_scaled(direction, buffer, config_.momentum) : buffer;
  }
  return detail::add_scaled(param, direction, -lr);
}

}  // namespace ember::optim
