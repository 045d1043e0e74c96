#include "ember/optim/adagrad.h"

#include "checks.h"
#include "ember/tensor_ops.h"
#include "update_math.h"

namespace ember::optim {

Adagrad AdagradConfig::init() const {
  return Adagrad(*this);
}

Adagrad::Adagrad(const AdagradConfig& config) : config_(config) {
  detail::check_non_negative(name(), "lr_decay", config.lr_decay);
  detail::check_non_negative(name(), "weight_decay", config.weight_decay);
  detail::check_non_negative(name(), "initial_accumulator_value", config.initial_accumulator_value);
  detail::check_non_negative(name(), "eps", config.eps);
}

StateSlots Adagrad::slots() const {
  return {{"sum"}, {"step"}};
}

TensorHandle Adagrad::update(const std::string& name, const TensorHandle& param,
                             const TensorHandle& grad, double lr) {
  ParamState& state = state_of(name);
  const double step = detail::next_step(state);
  const TensorHandle g =
      config_.weight_decay != 0 ? detail::add_scaled(grad, param, config_.weight_decay) : grad;
  const double decayed_lr = lr / (1.0 + (step - 1.0) * config_.lr_decay);
  TensorHandle& sum = detail::tensor_slot(state, "sum", param, config_.initial_accumulator_value);
  sum = detail::add_scaled_product(sum, g, g, 1.0);
  const TensorHandle denom = ops::add_scalar(ops::sqrt(sum), config_.eps);
  return detail::add_scaled_quotient(param, g, denom, -decayed_lr);
}

}  // namespace ember::optim
