// Learning-rate schedulers: the learning rate as a function of the step, passed to each
// Optimizer::step:
//
//   auto schedule = optim::CosineAnnealingLrConfig{.initial_lr = 0.1, .t_max = 1000}.init();
//   for (...) {
//     optimizer.step(model, grads, schedule.lr());
//     schedule.step();
//   }
//
// Each schedule is a pure function lr_at(step) (step 0: the first optimizer step), with
// PyTorch's closed forms (torch.optim.lr_scheduler); the scheduler only counts steps, so its
// state is that count, saved and restored as an OptimizerState.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "ember/optim/state.h"

namespace ember::optim {

class LrScheduler {
 public:
  virtual ~LrScheduler() = default;

  /// The learning rate at step (>= 0, else InvalidArgument "[<name()>] ...").
  double lr_at(int64_t step) const;
  /// The learning rate at the current step.
  double lr() const { return lr_at(step_); }
  /// Moves to the next step: call once after each optimizer step.
  void step() { ++step_; }
  /// How many times step was called (or the count load_state restored).
  int64_t current_step() const { return step_; }

  /// The entry "step": the current step.
  OptimizerState state() const;
  /// Restores the current step. InvalidArgument "[<name()>] ..." unless state has exactly the
  /// counter "step", a non-negative integer, and no tensor.
  void load_state(const OptimizerState& state);

  /// The scheduler's name, which starts its error messages ("StepLr").
  virtual std::string_view name() const = 0;

 protected:
  LrScheduler() = default;
  LrScheduler(const LrScheduler&) = default;
  LrScheduler(LrScheduler&&) = default;
  LrScheduler& operator=(const LrScheduler&) = default;
  LrScheduler& operator=(LrScheduler&&) = default;

  /// The learning rate at step (>= 0).
  virtual double compute_lr(int64_t step) const = 0;

 private:
  int64_t step_ = 0;
};

class ConstantLr;
class StepLr;
class ExponentialLr;
class CosineAnnealingLr;
class LinearLr;
class NoamLr;
class SequentialLr;

// Each scheduler's constructor (which its config's init calls) checks the config:
// InvalidArgument "[<scheduler>] ..." naming the value. Learning rates must be finite and >= 0,
// counts >= 1.

/// lr at every step.
struct ConstantLrConfig {
  double lr;
  ConstantLr init() const;
};

class ConstantLr final : public LrScheduler {
 public:
  explicit ConstantLr(const ConstantLrConfig& config);
  std::string_view name() const override { return "ConstantLr"; }

 private:
  double compute_lr(int64_t step) const override;
  ConstantLrConfig config_;
};

/// initial_lr · gamma^⌊step / step_size⌋ (torch StepLR). gamma finite and > 0.
struct StepLrConfig {
  double initial_lr;
  int64_t step_size;
  double gamma = 0.1;
  StepLr init() const;
};

class StepLr final : public LrScheduler {
 public:
  explicit StepLr(const StepLrConfig& config);
  std::string_view name() const override { return "StepLr"; }

 private:
  double compute_lr(int64_t step) const override;
  StepLrConfig config_;
};

/// initial_lr · gamma^step (torch ExponentialLR). gamma finite and > 0.
struct ExponentialLrConfig {
  double initial_lr;
  double gamma;
  ExponentialLr init() const;
};

class ExponentialLr final : public LrScheduler {
 public:
  explicit ExponentialLr(const ExponentialLrConfig& config);
  std::string_view name() const override { return "ExponentialLr"; }

 private:
  double compute_lr(int64_t step) const override;
  ExponentialLrConfig config_;
};

/// eta_min + (initial_lr − eta_min) · (1 + cos(π · step / t_max)) / 2 (torch
/// CosineAnnealingLR): initial_lr at step 0, eta_min at t_max; past t_max the cosine goes on,
/// back up to initial_lr at 2 · t_max, as PyTorch's does.
struct CosineAnnealingLrConfig {
  double initial_lr;
  int64_t t_max;
  double eta_min = 0.0;
  CosineAnnealingLr init() const;
};

class CosineAnnealingLr final : public LrScheduler {
 public:
  explicit CosineAnnealingLr(const CosineAnnealingLrConfig& config);
  std::string_view name() const override { return "CosineAnnealingLr"; }

 private:
  double compute_lr(int64_t step) const override;
  CosineAnnealingLrConfig config_;
};

/// Linear warm-up: from + (to − from) · min(step, steps) / steps, i.e. from at step 0 and to
/// from step `steps` on (torch LinearLR with base lr `to`, start_factor from / to, end_factor 1,
/// total_iters steps).
struct LinearLrConfig {
  double from;
  double to;
  int64_t steps;
  LinearLr init() const;
};

class LinearLr final : public LrScheduler {
 public:
  explicit LinearLr(const LinearLrConfig& config);
  std::string_view name() const override { return "LinearLr"; }

 private:
  double compute_lr(int64_t step) const override;
  LinearLrConfig config_;
};

/// The Transformer's schedule ("Attention Is All You Need", the "Noam" rate): with s = step + 1,
/// factor · d_model^−0.5 · min(s^−0.5, s · warmup^−1.5): a linear rise over warmup steps, then
/// a decay as 1 / sqrt(s). factor finite and > 0.
struct NoamLrConfig {
  int64_t d_model;
  int64_t warmup;
  double factor = 1.0;
  NoamLr init() const;
};

class NoamLr final : public LrScheduler {
 public:
  explicit NoamLr(const NoamLrConfig& config);
  std::string_view name() const override { return "NoamLr"; }

 private:
  double compute_lr(int64_t step) const override;
  NoamLrConfig config_;
};

/// Schedules one after another (torch SequentialLR): schedulers[i] runs from milestones[i − 1]
/// (0 for the first), with its own steps counted from there. The usual warm-up then cosine:
///
///   optim::SequentialLrConfig{
///       {optim::shared(optim::LinearLrConfig{1e-5, 1e-3, 100}.init()),
///        optim::shared(optim::CosineAnnealingLrConfig{1e-3, 900}.init())},
///       {100}}.init()
///
/// Checks: at least one scheduler, none null, one milestone fewer than schedulers, milestones
/// strictly increasing and >= 1.
struct SequentialLrConfig {
  std::vector<std::shared_ptr<const LrScheduler>> schedulers;
  std::vector<int64_t> milestones;
  SequentialLr init() const;
};

class SequentialLr final : public LrScheduler {
 public:
  explicit SequentialLr(const SequentialLrConfig& config);
  std::string_view name() const override { return "SequentialLr"; }

 private:
  double compute_lr(int64_t step) const override;
  SequentialLrConfig config_;
};

/// A scheduler as a shared part of a SequentialLr.
template <typename S>
std::shared_ptr<const LrScheduler> shared(S scheduler) {
  return std::make_shared<const S>(std::move(scheduler));
}

}  // namespace ember::optim
