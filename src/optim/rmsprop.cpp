#include "ember/optim/rmsprop.h"

#include "checks.h"
#include "ember/tensor_ops.h"
#include "update_math.h"

namespace ember::optim {

RmsProp RmsPropConfig::init() const {
  return RmsProp(*this);
}

RmsProp::RmsProp(const RmsPropConfig& config) : config_(config) {
  detail::check_non_negative(name(), "alpha", config.alpha);
  detail::check_non_negative(name(), "eps", config.eps);
  detail::check_non_negative(name(), "weight_decay", config.weight_decay);
  detail::check_non_negative(name(), "momentum", config.momentum);
}

StateSlots RmsProp::slots() const {
  StateSlots slots{{"square_avg"}, {"step"}};
  if (config_.centered) slots.tensors.push_back("grad_avg");
  if (config_.momentum > 0) slots.tensors.push_back("momentum_buffer");
  return slots;
}

TensorHandle RmsProp::update(const std::string& name, const TensorHandle& param,
                             const TensorHandle& grad, double lr) {
  ParamState& state = state_of(name);
  // PyTorch counts RMSProp's steps too, though its update does not use the count.
  detail::next_step(state);
  const TensorHandle g =
      config_.weight_decay != 0 ? detail::add_scaled(grad, param, config_.weight_decay) : grad;
  TensorHandle& square_avg = detail::tensor_slot(state, "square_avg", param);
  square_avg = detail::moving_average_of_squares(square_avg, g, config_.alpha);
  TensorHandle variance = square_avg;
  if (config_.centered) {
    TensorHandle& grad_avg = detail::tensor_slot(state, "grad_avg", param);
    grad_avg = detail::moving_average(grad_avg, g, config_.alpha);
    variance = detail::add_scaled_product(square_avg, grad_avg, grad_avg, -1.0);
  }
  const TensorHandle denom = ops::add_scalar(ops::sqrt(variance), config_.eps);
  if (config_.momentum > 0) {
    TensorHandle& buffer = detail::tensor_slot(state, "momentum_buffer", param);
    buffer = detail::add_scaled_quotient(ops::mul_scalar(buffer, config_.momentum), g, denom, 1.0);
    return detail::add_scaled(param, buffer, -lr);
  }
  return detail::add_scaled_quotient(param, g, denom, -lr);
}

}  // namespace ember::optim
