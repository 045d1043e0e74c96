#include "ember/optim/adam.h"

#include <cmath>

#include "checks.h"
#include "ember/tensor_ops.h"
#include "update_math.h"

namespace ember::optim {
namespace {

/// What Adam and AdamW share: their moment hyper-parameters.
struct Moments {
  double beta1;
  double beta2;
  double eps;
  bool amsgrad;
};

template <typename Config>
void check_config(std::string_view owner, const Config& config) {
  detail::check_fraction(owner, "beta1", config.beta1);
  detail::check_fraction(owner, "beta2", config.beta2);
  detail::check_non_negative(owner, "eps", config.eps);
  detail::check_non_negative(owner, "weight_decay", config.weight_decay);
}

template <typename Config>
Moments moments_of(const Config& config) {
  return {config.beta1, config.beta2, config.eps, config.amsgrad};
}

StateSlots moment_slots(bool amsgrad) {
  StateSlots slots{{"exp_avg", "exp_avg_sq"}, {"step"}};
  if (amsgrad) slots.tensors.push_back("max_exp_avg_sq");
  return slots;
}

/// The new param after the moment update of the file comment in adam.h (torch's
/// _single_tensor_adam, once weight decay is applied).
TensorHandle moment_step(ParamState& state, const Moments& m, const TensorHandle& param,
                         const TensorHandle& grad, double lr) {
  const double step = detail::next_step(state);
  TensorHandle& exp_avg = detail::tensor_slot(state, "exp_avg", param);
  TensorHandle& exp_avg_sq = detail::tensor_slot(state, "exp_avg_sq", param);
  exp_avg = detail::moving_average(exp_avg, grad, m.beta1);
  exp_avg_sq = detail::moving_average_of_squares(exp_avg_sq, grad, m.beta2);
  TensorHandle second_moment = exp_avg_sq;
  if (m.amsgrad) {
    TensorHandle& max_exp_avg_sq = detail::tensor_slot(state, "max_exp_avg_sq", param);
    max_exp_avg_sq = ops::maximum(max_exp_avg_sq, exp_avg_sq);
    second_moment = max_exp_avg_sq;
  }
  const double step_size = lr / (1.0 - std::pow(m.beta1, step));
  const double bias_correction2_sqrt = std::sqrt(1.0 - std::pow(m.beta2, step));
  const TensorHandle denom =
      ops::add_scalar(ops::div_scalar(ops::sqrt(second_moment), bias_correction2_sqrt), m.eps);
  return detail::add_scaled_quotient(param, exp_avg, denom, -step_size);
}

}  // namespace

Adam AdamConfig::init() const {
  return Adam(*this);
}

AdamW AdamWConfig::init() const {
  return AdamW(*this);
}

Adam::Adam(const AdamConfig& config) : config_(config) {
  check_config(name(), config);
}

AdamW::AdamW(const AdamWConfig& config) : config_(config) {
  check_config(name(), config);
}

StateSlots Adam::slots() const {
  return moment_slots(config_.amsgrad);
}

StateSlots AdamW::slots() const {
  return moment_slots(config_.amsgrad);
}

TensorHandle Adam::update(const std::string& name, const TensorHandle& param,
                          const TensorHandle& grad, double lr) {
  const TensorHandle decayed_grad =
      config_.weight_decay != 0 ? detail::add_scaled(grad, param, config_.weight_decay) : grad;
  return moment_step(state_of(name), moments_of(config_), param, decayed_grad, lr);
}

TensorHandle AdamW::update(const std::string& name, const TensorHandle& param,
                           const TensorHandle& grad, double lr) {
  const TensorHandle decayed_param = ops::mul_scalar(param, 1.0 - lr * config_.weight_decay);
  return moment_step(state_of(name), moments_of(config_), decayed_param, grad, lr);
}

}  // namespace ember::optim
