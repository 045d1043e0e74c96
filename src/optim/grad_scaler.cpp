#include "ember/optim/grad_scaler.h"

#include <cmath>

#include "checks.h"
#include "ember/autodiff.h"
#include "ember/tensor_ops.h"

namespace ember::optim {
namespace {

constexpr const char* kOwner = "GradScaler";

void check_config(const GradScalerConfig& c) {
  detail::check_positive(kOwner, "init_scale", c.init_scale);
  detail::check_finite(kOwner, "growth_factor", c.growth_factor);
  if (!(c.growth_factor > 1)) {
    detail::fail(kOwner,
                 "growth_factor " + detail::format_number(c.growth_factor) + " must be > 1");
  }
  if (!(c.backoff_factor > 0 && c.backoff_factor < 1)) {
    detail::fail(
        kOwner, "backoff_factor " + detail::format_number(c.backoff_factor) + " must be in (0, 1)");
  }
  detail::check_count(kOwner, "growth_interval", c.growth_interval);
}

/// A one-element tensor that is NaN when grad holds an inf or NaN and 0 otherwise: x * 0 is 0 for
/// every finite x and NaN for an infinite or NaN one, so one sum tells, with a single read of the
/// gradient and no host round trip per param.
TensorHandle non_finite_marker(const TensorHandle& grad) {
  return ops::sum(ops::mul_scalar(grad, 0.0));
}

}  // namespace

GradScaler GradScalerConfig::init() const {
  return GradScaler(*this);
}

GradScaler::GradScaler(const GradScalerConfig& config)
    : config_(config), scale_(config.init_scale) {
  check_config(config_);
}

TensorHandle GradScaler::scale(const TensorHandle& loss) const {
  if (!config_.enabled) return loss;
  return ops::mul_scalar(loss, scale_);
}

bool GradScaler::unscale(GradientsParams& grads) {
  if (!config_.enabled) return true;
  if (unscaled_) {
    detail::fail(kOwner, "unscale called twice for one step: call update() after each step");
  }
  const NoGradGuard no_grad;
  // Divided in f64 here, applied in each gradient's dtype: exact for the powers of two the scale
  // takes with the default factors.
  const double inverse = 1.0 / scale_;
  GradientsParams unscaled;
  TensorHandle markers;
  for (const auto& [name, grad] : grads) {
    const TensorHandle g = ops::mul_scalar(grad, inverse);
    // Each marker in f32, whatever the gradient's dtype, so that they add up in one dtype.
    const TensorHandle marker = ops::cast(non_finite_marker(g), DType::F32);
    markers = markers.defined() ? ops::add(markers, marker) : marker;
    unscaled.insert(name, g);
  }
  grads = std::move(unscaled);
  unscaled_ = true;
  found_inf_ = markers.defined() && !std::isfinite(ops::into_data(markers).to_vector<double>()[0]);
  return !found_inf_;
}

void GradScaler::update() {
  if (!config_.enabled) return;
  if (!unscaled_) detail::fail(kOwner, "update called without unscale or step before it");
  if (found_inf_) {
    scale_ *= config_.backoff_factor;
    growth_tracker_ = 0;
  } else if (++growth_tracker_ == config_.growth_interval) {
    scale_ *= config_.growth_factor;
    growth_tracker_ = 0;
  }
  unscaled_ = false;
  found_inf_ = false;
}

double GradScaler::current_scale() const {
  return config_.enabled ? scale_ : 1.0;
}

void GradScaler::load(double scale, int64_t growth_tracker) {
  detail::check_positive(kOwner, "scale", scale);
  if (growth_tracker < 0) {
    detail::fail(kOwner, "growth_tracker " + std::to_string(growth_tracker) + " must be >= 0");
  }
  scale_ = scale;
  growth_tracker_ = growth_tracker;
}

}  // namespace ember::optim
