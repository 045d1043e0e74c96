// Adam and AdamW: torch.optim.Adam and torch.optim.AdamW's updates. They differ only in weight
// decay: Adam adds weight_decay · param to the gradient (L2 regularization, which the moments
// then rescale), AdamW shrinks the param by lr · weight_decay directly (decoupled decay). Then
// both update, per param, with gradient g, at step t (1 on the first update):
//   m ← β1 · m + (1 − β1) · g                   (m, v, v̂ start at zero)
//   v ← β2 · v + (1 − β2) · g²
//   v̂ ← max(v̂, v) with amsgrad, else v
//   param ← param − lr / (1 − β1^t) · m / (sqrt(v̂) / sqrt(1 − β2^t) + eps)
// Both configs are checked by init and by the constructor: InvalidArgument "[Adam] ..." or
// "[AdamW] ..." unless beta1 and beta2 are in [0, 1) and eps and weight_decay finite and >= 0.
#pragma once

#include <memory>

#include <string>
#include <string_view>

#include "ember/optim/optimizer.h"

namespace ember::optim {

class Adam;
class AdamW;

/// How to build an Adam: `optim::AdamConfig{.weight_decay = 1e-4}.init()`. Weight decay first
/// turns the gradient into g + weight_decay · param.
struct AdamConfig {
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0.0;
  bool amsgrad = false;

  /// InvalidArgument "[Adam] ..." as the file comment says.
  Adam init() const;
};

/// How to build an AdamW: `optim::AdamWConfig{}.init()`. Weight decay first turns the param
/// into param · (1 − lr · weight_decay), independently of the gradient.
struct AdamWConfig {
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0.01;
  bool amsgrad = false;

  /// InvalidArgument "[AdamW] ..." as the file comment says.
  AdamW init() const;
};

/// State per param: "exp_avg" (m), "exp_avg_sq" (v), "max_exp_avg_sq" (with amsgrad), "step".
class Adam final : public Optimizer {
 public:
  /// Checks config as AdamConfig::init says.
  explicit Adam(const AdamConfig& config = {});
  const AdamConfig& config() const { return config_; }
  std::string_view name() const override { return "Adam"; }
  std::unique_ptr<Optimizer> clone() const override { return std::make_unique<Adam>(*this); }

 protected:
  StateSlots slots() const override;
  TensorHandle update(const std::string& name, const TensorHandle& param, const TensorHandle& grad,
                      double lr) override;

 private:
  AdamConfig config_;
};

/// State per param: as Adam.
class AdamW final : public Optimizer {
 public:
  /// Checks config as AdamWConfig::init says.
  explicit AdamW(const AdamWConfig& config = {});
  const AdamWConfig& config() const { return config_; }
  std::string_view name() const override { return "AdamW"; }
  std::unique_ptr<Optimizer> clone() const override { return std::make_unique<AdamW>(*this); }

 protected:
  StateSlots slots() const override;
  TensorHandle update(const std::string& name, const TensorHandle& param, const TensorHandle& grad,
                      double lr) override;

 private:
  AdamWConfig config_;
};

}  // namespace ember::optim
