// GradScaler: dynamic loss scaling for f16 mixed precision (torch.amp.GradScaler). f16's
// smallest normal is 6e-5, so the small gradients of an autocast f16 forward pass
// (Device::autocast) underflow to zero on their way back; scaling the loss scales every gradient
// along the way, and the gradients are divided by the scale again before the optimizer sees them.
// bf16 has f32's range and needs no scaler.
//
//   optim::GradScaler scaler = optim::GradScalerConfig{}.init();
//   const Gradients grads = scaler.scale(loss).backward();
//   optim::GradientsParams params = optim::GradientsParams::from(model, grads);
//   scaler.unscale(params);                          // optional: before clipping them
//   scaler.step(optimizer, model, params, lr);       // skipped on an inf or NaN gradient
//   scaler.update();                                 // backs off, or grows the scale
//
// A scale too large makes some gradient overflow: that step is skipped and the scale multiplied by
// backoff_factor. After growth_interval steps in a row without one, it is multiplied by
// growth_factor. The optimizer and the model need nothing of their own.
#pragma once

#include <cstdint>

#include "ember/optim/gradients_params.h"
#include "ember/optim/optimizer.h"
#include "ember/tensor.h"

namespace ember::optim {

class GradScaler;

/// How to build a GradScaler; PyTorch's defaults.
struct GradScalerConfig {
  double init_scale = 65536.0;     ///< finite, > 0
  double growth_factor = 2.0;      ///< finite, > 1
  double backoff_factor = 0.5;     ///< in (0, 1)
  int64_t growth_interval = 2000;  ///< >= 1
  /// false: every call passes its argument through, unscaled (one code path for f32 and f16).
  bool enabled = true;

  /// InvalidArgument "[GradScaler] ..." for a value outside its range above.
  GradScaler init() const;
};

class GradScaler {
 public:
  /// Checks config as GradScalerConfig::init says.
  explicit GradScaler(const GradScalerConfig& config = {});
  const GradScalerConfig& config() const { return config_; }

  /// loss multiplied by the current scale (loss itself when disabled); backward() from it.
  TensorHandle scale(const TensorHandle& loss) const;
  template <std::size_t D>
  Tensor<D> scale(const Tensor<D>& loss) const {
    return Tensor<D>(scale(loss.handle()));
  }

  /// Divides every gradient in grads by the scale, and notes whether one holds an inf or NaN.
  /// Once per step: a second call before update() throws InvalidArgument, since the gradients
  /// are unscaled already. Returns whether they are all finite.
  bool unscale(GradientsParams& grads);

  /// Unscales grads (unless unscale did already) and runs optimizer.step(model, grads, lr) when
  /// every gradient is finite; returns whether the step ran.
  template <nn::Module M>
  bool step(Optimizer& optimizer, M& model, GradientsParams grads, double lr) {
    if (!unscaled_) unscale(grads);
    if (found_inf_) return false;
    optimizer.step(model, grads, lr);
    return true;
  }

  /// Ends the step: on an inf or NaN gradient the scale is multiplied by backoff_factor, else
  /// after growth_interval finite steps in a row by growth_factor. InvalidArgument when no
  /// unscale (or step) came before it.
  void update();

  /// The current scale (1 when disabled).
  double current_scale() const;
  /// Finite steps in a row since the scale last changed.
  int64_t growth_tracker() const { return growth_tracker_; }
  /// Restores a scale and growth tracker (as saved from current_scale and growth_tracker).
  /// InvalidArgument "[GradScaler] ..." for a scale that is not finite and > 0, or a negative
  /// tracker.
  void load(double scale, int64_t growth_tracker);

 private:
  GradScalerConfig config_;
  double scale_;
  int64_t growth_tracker_ = 0;
  bool unscaled_ = false;   ///< unscale ran since the last update
  bool found_inf_ = false;  ///< and found an inf or NaN
};

}  // namespace ember::optim
