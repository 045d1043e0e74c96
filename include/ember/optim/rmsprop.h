// RMSProp: torch.optim.RMSprop's update.
#pragma once

#include <memory>

#include <string>
#include <string_view>

#include "ember/optim/optimizer.h"

namespace ember::optim {

class RmsProp;

/// How to build an RmsProp: `optim::RmsPropConfig{.momentum = 0.9}.init()`. Per param, with
/// gradient g:
///   g ← g + weight_decay · param
///   s ← alpha · s + (1 − alpha) · g²                      (s, a, b start at zero)
///   a ← alpha · a + (1 − alpha) · g                       (centered)
///   d ← sqrt(s − a²) if centered, else sqrt(s); d ← d + eps
///   b ← momentum · b + g / d; param ← param − lr · b      (momentum > 0)
///   param ← param − lr · g / d                            (momentum 0)
struct RmsPropConfig {
  double alpha = 0.99;
  double eps = 1e-8;
  double weight_decay = 0.0;
  double momentum = 0.0;
  bool centered = false;

  /// InvalidArgument "[RmsProp] ..." for a negative or non-finite alpha, eps, weight_decay or
  /// momentum.
  RmsProp init() const;
};

/// State per param: "square_avg" (s), "grad_avg" (a, when centered), "momentum_buffer" (b, when
/// momentum > 0), "step".
class RmsProp final : public Optimizer {
 public:
  /// Checks config as RmsPropConfig::init says.
  explicit RmsProp(const RmsPropConfig& config = {});
  const RmsPropConfig& config() const { return config_; }
  std::string_view name() const override { return "RmsProp"; }
  std::unique_ptr<Optimizer> clone() const override { return std::make_unique<RmsProp>(*this); }

 protected:
  StateSlots slots() const override;
  TensorHandle update(const std::string& name, const TensorHandle& param, const TensorHandle& grad,
                      double lr) override;

 private:
  RmsPropConfig config_;
};

}  // namespace ember::optim
