// Stochastic gradient descent with momentum, dampening, Nesterov momentum and weight decay:
// torch.optim.SGD's update.
#pragma once

#include <memory>

#include <string>
#include <string_view>

#include "ember/optim/optimizer.h"

namespace ember::optim {

class Sgd;

/// How to build an Sgd: `optim::SgdConfig{.momentum = 0.9}.init()`. Per param, with gradient g:
///   g ← g + weight_decay · param
///   b ← g on the first step, else momentum · b + (1 − dampening) · g     (when momentum ≠ 0)
///   g ← g + momentum · b with nesterov, else b                           (when momentum ≠ 0)
///   param ← param − lr · g
struct SgdConfig {
  double momentum = 0.0;
  double dampening = 0.0;
  double weight_decay = 0.0;
  bool nesterov = false;

  /// InvalidArgument "[Sgd] ..." for a negative or non-finite momentum or weight_decay, a
  /// non-finite dampening, or nesterov without momentum > 0 and dampening 0.
  Sgd init() const;
};

/// State per param: "momentum_buffer" (when momentum ≠ 0).
class Sgd final : public Optimizer {
 public:
  /// Checks config as SgdConfig::init says.
  explicit Sgd(const SgdConfig& config = {});
  const SgdConfig& config() const { return config_; }
  std::string_view name() const override { return "Sgd"; }
  std::unique_ptr<Optimizer> clone() const override { return std::make_unique<Sgd>(*this); }

 protected:
  StateSlots slots() const override;
  TensorHandle update(const std::string& name, const TensorHandle& param, const TensorHandle& grad,
                      double lr) override;

 private:
  SgdConfig config_;
};

}  // namespace ember::optim
