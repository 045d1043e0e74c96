// Adagrad: torch.optim.Adagrad's update.
#pragma once

#include <memory>

#include <string>
#include <string_view>

#include "ember/optim/optimizer.h"

namespace ember::optim {

class Adagrad;

/// How to build an Adagrad: `optim::AdagradConfig{}.init()`. Per param, with gradient g, at step
/// t (1 on the first update):
///   g ← g + weight_decay · param
///   s ← s + g²                              (s starts at initial_accumulator_value)
///   param ← param − lr / (1 + (t − 1) · lr_decay) · g / (sqrt(s) + eps)
struct AdagradConfig {
  double lr_decay = 0.0;
  double weight_decay = 0.0;
  double initial_accumulator_value = 0.0;
  double eps = 1e-10;

  /// InvalidArgument "[Adagrad] ..." for any field negative or non-finite.
  Adagrad init() const;
};

/// State per param: "sum" (s), "step".
class Adagrad final : public Optimizer {
 public:
  /// Checks config as AdagradConfig::init says.
  explicit Adagrad(const AdagradConfig& config = {});
  const AdagradConfig& config() const { return config_; }
  std::string_view name() const override { return "Adagrad"; }
  std::unique_ptr<Optimizer> clone() const override { return std::make_unique<Adagrad>(*this); }

 protected:
  StateSlots slots() const override;
  TensorHandle update(const std::string& name, const TensorHandle& param, const TensorHandle& grad,
                      double lr) override;

 private:
  AdagradConfig config_;
};

}  // namespace ember::optim
