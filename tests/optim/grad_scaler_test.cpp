// GradScaler: loss scaling for f16 mixed precision, checked against torch.amp.GradScaler's rules
// (its defaults, backoff on inf/NaN, growth after growth_interval clean steps); and the
// optimizers on an autocast device.
#include <cmath>
#include <limits>

#include "optim_test_util.h"

namespace ember::optim::test {
namespace {

/// The optimizer of these tests: plain SGD, param - lr * grad (stateless, so one serves all).
Optimizer& scaler_sgd() {
  static Sgd sgd;
  return sgd;
}

/// fixed_grads(0) multiplied by scale, as backward from a scaled loss gives them.
GradientsParams scaled_grads(double scale) {
  GradientsParams grads;
  for (const auto& [name, grad] : fixed_grads(0))
    grads.insert(name, ops::mul_scalar(grad, scale));
  return grads;
}

/// scaled_grads(scale) with one weight element replaced by value (inf, NaN).
GradientsParams grads_holding(double scale, double value) {
  GradientsParams grads = scaled_grads(scale);
  std::vector<double> weight = values<double>(*grads.get("weight"));
  weight[4] = value;
  grads.insert("weight", f64(weight, {2, 3}));
  return grads;
}

TEST(GradScaler, DefaultsArePyTorchs) {
  const GradScalerConfig config;
  EXPECT_EQ(config.init_scale, 65536.0);
  EXPECT_EQ(config.growth_factor, 2.0);
  EXPECT_EQ(config.backoff_factor, 0.5);
  EXPECT_EQ(config.growth_interval, 2000);
  EXPECT_EQ(GradScalerConfig{}.init().current_scale(), 65536.0);
}

TEST(GradScaler, ScaleMultipliesTheLoss) {
  const GradScaler scaler = GradScalerConfig{.init_scale = 8.0}.init();
  EXPECT_EQ(values<double>(scaler.scale(f64({1.5, -2.0}, {2}))), (std::vector<double>{12, -16}));
}

TEST(GradScaler, AFiniteStepRunsOnTheUnscaledGradients) {
  GradScaler scaler;
  nn::Linear scaled_model = small_linear();
  EXPECT_TRUE(scaler.step(scaler_sgd(), scaled_model, scaled_grads(65536.0), 0.5));
  scaler.update();
  nn::Linear plain_model = small_linear();
  Sgd().step(plain_model, fixed_grads(0), 0.5);
  // Dividing by a power of two is exact: the same update bit for bit.
  expect_identical(scaled_model, plain_model);
  EXPECT_EQ(scaler.current_scale(), 65536.0);
  EXPECT_EQ(scaler.growth_tracker(), 1);
}

TEST(GradScaler, AnInfOrNanGradientSkipsTheStepAndHalvesTheScale) {
  for (const double bad :
       {std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
        std::numeric_limits<double>::quiet_NaN()}) {
    GradScaler scaler = GradScalerConfig{.growth_interval = 10}.init();
    nn::Linear model = small_linear();
    scaler.step(scaler_sgd(), model, scaled_grads(65536.0), 0.5);  // a clean step: tracker at 1
    scaler.update();
    const nn::Linear before = model;
    EXPECT_FALSE(scaler.step(scaler_sgd(), model, grads_holding(65536.0, bad), 0.5));
    expect_identical(model, before);
    scaler.update();
    EXPECT_EQ(scaler.current_scale(), 32768.0);
    EXPECT_EQ(scaler.growth_tracker(), 0);
  }
}

TEST(GradScaler, TheScaleGrowsAfterGrowthIntervalCleanSteps) {
  GradScaler scaler = GradScalerConfig{.init_scale = 4.0, .growth_interval = 3}.init();
  nn::Linear model = small_linear();
  const std::vector<double> scales_after_each = {4, 4, 8, 8, 8, 16};
  for (const double expected : scales_after_each) {
    scaler.step(scaler_sgd(), model, scaled_grads(scaler.current_scale()), 0.1);
    scaler.update();
    EXPECT_EQ(scaler.current_scale(), expected);
  }
}

TEST(GradScaler, UnscaleBeforeStepIsForClipping) {
  GradScaler scaler = GradScalerConfig{.init_scale = 4.0}.init();
  GradientsParams grads = scaled_grads(4.0);
  EXPECT_TRUE(scaler.unscale(grads));
  EXPECT_EQ(values<double>(*grads.get("bias")), values<double>(*fixed_grads(0).get("bias")));
  EXPECT_INVALID(scaler.unscale(grads), "[GradScaler]", "twice");
  nn::Linear model = small_linear();
  EXPECT_TRUE(scaler.step(scaler_sgd(), model, grads, 0.5));  // not unscaled a second time
  nn::Linear plain = small_linear();
  Sgd().step(plain, fixed_grads(0), 0.5);
  expect_identical(model, plain);
  scaler.update();
  EXPECT_INVALID(scaler.update(), "[GradScaler]", "without unscale");
}

TEST(GradScaler, DisabledPassesEverythingThrough) {
  GradScaler scaler = GradScalerConfig{.enabled = false}.init();
  EXPECT_EQ(scaler.current_scale(), 1.0);
  const TensorHandle loss = f64({3.0}, {1});
  EXPECT_EQ(values<double>(scaler.scale(loss)), std::vector<double>{3.0});
  nn::Linear model = small_linear();
  EXPECT_TRUE(scaler.step(scaler_sgd(), model, fixed_grads(0), 0.5));
  scaler.update();
  scaler.update();
}

TEST(GradScaler, ConfigIsChecked) {
  EXPECT_INVALID(GradScalerConfig{.init_scale = 0}.init(), "[GradScaler]", "init_scale");
  EXPECT_INVALID(GradScalerConfig{.growth_factor = 1.0}.init(), "[GradScaler]", "growth_factor");
  EXPECT_INVALID(GradScalerConfig{.backoff_factor = 1.0}.init(), "[GradScaler]", "backoff_factor");
  EXPECT_INVALID(GradScalerConfig{.growth_interval = 0}.init(), "[GradScaler]", "growth_interval");
  GradScaler scaler;
  EXPECT_INVALID(scaler.load(-1.0, 0), "[GradScaler]", "scale");
  scaler.load(1024.0, 7);
  EXPECT_EQ(scaler.current_scale(), 1024.0);
  EXPECT_EQ(scaler.growth_tracker(), 7);
}

// The optimizers need nothing of their own on an autocast device: their updates are elementwise
// (and, for clipping, f32 reductions of f32 gradients), which the policy leaves alone.
TEST(GradScaler, OptimizersRunUnchangedOnAnAutocastDevice) {
  const auto on = [](const Device& d) {
    nn::Linear model = small_linear();
    return linear(ops::to_device(ops::cast(model.weight.handle(), DType::F32), d),
                  ops::to_device(ops::cast(model.bias->handle(), DType::F32), d));
  };
  const auto grads_on = [](const Device& d, int step) {
    GradientsParams grads;
    for (const auto& [name, grad] : fixed_grads(step))
      grads.insert(name, ops::to_device(ops::cast(grad, DType::F32), d));
    return grads;
  };
  const Device plain = device();
  // Autocast needs its dtype: the f16 one where the suite's device has no bf16 (vulkan).
  const FloatDType lower = plain.supports_dtype(DType::BF16) ? FloatDType::BF16 : FloatDType::F16;
  const Device autocast = plain.autocast(lower);
  nn::Linear a = on(plain);
  nn::Linear b = on(autocast);
  Adam adam_a, adam_b;
  for (int step = 0; step < 3; ++step) {
    adam_a.step(a, grads_on(plain, step), 0.1);
    GradientsParams gb = grads_on(autocast, step);
    clip_grad_norm(gb, 1e9);
    adam_b.step(b, gb, 0.1);
  }
  EXPECT_EQ(b.weight.handle().dtype(), DType::F32);
  EXPECT_EQ(values<float>(a.weight.handle()), values<float>(b.weight.handle()));
}

}  // namespace
}  // namespace ember::optim::test
