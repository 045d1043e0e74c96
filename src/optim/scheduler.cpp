#include "ember/optim/scheduler.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "checks.h"

namespace ember::optim {

double LrScheduler::lr_at(int64_t step) const {
  if (step < 0) detail::fail(name(), "step " + std::to_string(step) + " must be >= 0");
  return compute_lr(step);
}

OptimizerState LrScheduler::state() const {
  return {{}, {{"step", static_cast<double>(step_)}}};
}

void LrScheduler::load_state(const OptimizerState& state) {
  if (!state.tensors.empty()) {
    detail::fail(name(), "unexpected state tensor '" + state.tensors.begin()->first +
                             "' (a scheduler keeps only the counter step)");
  }
  for (const auto& [entry, value] : state.scalars) {
    if (entry != "step") detail::fail(name(), "unknown state entry '" + entry + "'");
    if (!detail::is_counter(value)) {
      detail::fail(name(), "state entry step is " + detail::format_number(value) +
                               ", not a non-negative integer");
    }
  }
  if (!state.scalars.contains("step")) detail::fail(name(), "state lacks entry step");
  step_ = static_cast<int64_t>(state.scalars.at("step"));
}

ConstantLr ConstantLrConfig::init() const {
  return ConstantLr(*this);
}

ConstantLr::ConstantLr(const ConstantLrConfig& config) : config_(config) {
  detail::check_non_negative(name(), "lr", config.lr);
}

double ConstantLr::compute_lr(int64_t) const {
  return config_.lr;
}

StepLr StepLrConfig::init() const {
  return StepLr(*this);
}

StepLr::StepLr(const StepLrConfig& config) : config_(config) {
  detail::check_non_negative(name(), "initial_lr", config.initial_lr);
  detail::check_count(name(), "step_size", config.step_size);
  detail::check_positive(name(), "gamma", config.gamma);
}

double StepLr::compute_lr(int64_t step) const {
  return config_.initial_lr *
         std::pow(config_.gamma, static_cast<double>(step / config_.step_size));
}

ExponentialLr ExponentialLrConfig::init() const {
  return ExponentialLr(*this);
}

ExponentialLr::ExponentialLr(const ExponentialLrConfig& config) : config_(config) {
  detail::check_non_negative(name(), "initial_lr", config.initial_lr);
  detail::check_positive(name(), "gamma", config.gamma);
}

double ExponentialLr::compute_lr(int64_t step) const {
  return config_.initial_lr * std::pow(config_.gamma, static_cast<double>(step));
}

CosineAnnealingLr CosineAnnealingLrConfig::init() const {
  return CosineAnnealingLr(*this);
}

CosineAnnealingLr::CosineAnnealingLr(const CosineAnnealingLrConfig& config) : config_(config) {
  detail::check_non_negative(name(), "initial_lr", config.initial_lr);
  detail::check_count(name(), "t_max", config.t_max);
  detail::check_non_negative(name(), "eta_min", config.eta_min);
}

double CosineAnnealingLr::compute_lr(int64_t step) const {
  const double phase =
      std::numbers::pi * static_cast<double>(step) / static_cast<double>(config_.t_max);
  return config_.eta_min + (config_.initial_lr - config_.eta_min) * (1.0 + std::cos(phase)) / 2.0;
}

LinearLr LinearLrConfig::init() const {
  return LinearLr(*this);
}

LinearLr::LinearLr(const LinearLrConfig& config) : config_(config) {
  detail::check_non_negative(name(), "from", config.from);
  detail::check_non_negative(name(), "to", config.to);
  detail::check_count(name(), "steps", config.steps);
}

double LinearLr::compute_lr(int64_t step) const {
  const double progress =
      static_cast<double>(std::min(step, config_.steps)) / static_cast<double>(config_.steps);
  return config_.from + (config_.to - config_.from) * progress;
}

NoamLr NoamLrConfig::init() const {
  return NoamLr(*this);
}

NoamLr::NoamLr(const NoamLrConfig& config) : config_(config) {
  detail::check_count(name(), "d_model", config.d_model);
  detail::check_count(name(), "warmup", config.warmup);
  detail::check_positive(name(), "factor", config.factor);
}

double NoamLr::compute_lr(int64_t step) const {
  const double s = static_cast<double>(step) + 1.0;
  const double warmup = static_cast<double>(config_.warmup);
  return config_.factor / std::sqrt(static_cast<double>(config_.d_model)) *
         std::min(1.0 / std::sqrt(s), s / (warmup * std::sqrt(warmup)));
}

SequentialLr SequentialLrConfig::init() const {
  return SequentialLr(*this);
}

SequentialLr::SequentialLr(const SequentialLrConfig& config) : config_(config) {
  if (config.schedulers.empty()) detail::fail(name(), "needs at least one scheduler");
  for (std::size_t i = 0; i < config.schedulers.size(); ++i) {
    if (!config.schedulers[i]) detail::fail(name(), "scheduler " + std::to_string(i) + " is null");
  }
  if (config.milestones.size() + 1 != config.schedulers.size()) {
    detail::fail(name(), std::to_string(config.schedulers.size()) + " schedulers need " +
                             std::to_string(config.schedulers.size() - 1) + " milestones, got " +
                             std::to_string(config.milestones.size()));
  }
  int64_t previous = 0;
  for (int64_t milestone : config.milestones) {
    if (milestone <= previous) {
      detail::fail(name(), "milestone " + std::to_string(milestone) + " must be above " +
                               std::to_string(previous) + " (milestones increase from 1)");
    }
    previous = milestone;
  }
}

double SequentialLr::compute_lr(int64_t step) const {
  // The scheduler that runs at step: one per milestone passed.
  const auto passed = std::upper_bound(config_.milestones.begin(), config_.milestones.end(), step);
  const std::size_t index = static_cast<std::size_t>(passed - config_.milestones.begin());
  const int64_t start = index == 0 ? 0 : config_.milestones[index - 1];
  return config_.schedulers[index]->lr_at(step - start);
}

}  // namespace ember::optim
