// Optimizer::step: which params it updates, the checks it makes before any update, and the
// optimizers' config checks.
#include <cmath>
#include <limits>

#include "optim_test_util.h"

namespace ember::optim::test {
namespace {

/// A module with a param no gradient reaches and a buffer.
struct WithExtras {
  nn::Linear fc;
  nn::Param<1> unused;
  nn::Buffer<1> count;
  EMBER_MODULE(fc, unused, count)
};

TEST(OptimizerStep, SgdUpdatesEachParamByMinusLrTimesItsGradient) {
  nn::Linear model = small_linear();
  Sgd().step(model, fixed_grads(0), 0.5);
  // Hand computation: param - 0.5 * grad, with grad as fixed_grads builds it.
  const std::vector<double> w0 = {0.5, -0.25, 1.0, -1.5, 0.75, 2.0};
  const std::vector<double> w = values<double>(model.weight.handle());
  for (std::size_t i = 0; i < w.size(); ++i)
    EXPECT_DOUBLE_EQ(w[i], w0[i] - 0.5 * std::sin(1.3 * static_cast<double>(i) + 0.1)) << i;
  EXPECT_DOUBLE_EQ(values<double>(model.bias->handle())[0], 0.1 - 0.5 * 1.0);
}

TEST(OptimizerStep, FrozenParamsAndParamsWithoutGradientAreUntouched) {
  WithExtras model{small_linear(), nn::Param<1>(Tensor<1>(f64({1.0, 2.0}, {2}))),
                   nn::Buffer<1>(Tensor<1>(f64({7.0}, {1})))};
  nn::freeze(model, "fc.bias");
  const WithExtras before = model;
  GradientsParams grads;
  grads.insert("fc.weight", *fixed_grads(0).get("weight"));
  grads.insert("fc.bias", *fixed_grads(0).get("bias"));      // frozen: ignored
  grads.insert("not.a.param", *fixed_grads(0).get("bias"));  // unknown: ignored
  Adam adam;
  adam.step(model, grads, 0.1);
  EXPECT_NE(model.fc.weight->into_data(), before.fc.weight->into_data());
  EXPECT_EQ(model.fc.bias->value().into_data(), before.fc.bias->value().into_data());
  EXPECT_EQ(model.unused->into_data(), before.unused->into_data());
  EXPECT_EQ(model.count.value().into_data(), before.count.value().into_data());
  EXPECT_FALSE(model.fc.bias->trainable());
  for (const auto& [name, data] : adam.state().tensors)
    EXPECT_TRUE(name.starts_with("fc.weight.")) << name;
}

TEST(OptimizerStep, UpdatedParamsStayTrainableLeaves) {
  nn::Linear model = small_linear();
  RmsProp().step(model, fixed_grads(0), 0.1);
  EXPECT_TRUE(ops::is_require_grad(model.weight.handle()));
  EXPECT_TRUE(ops::is_require_grad(model.bias->handle()));
}

TEST(OptimizerStep, RejectsABadLearningRate) {
  nn::Linear model = small_linear();
  for (double lr : {-0.1, std::nan(""), std::numeric_limits<double>::infinity()})
    EXPECT_INVALID(Sgd().step(model, fixed_grads(0), lr), "[Sgd] lr", "must be finite and >= 0");
  // lr 0 is allowed and changes nothing.
  const nn::Linear before = model;
  Sgd().step(model, fixed_grads(0), 0.0);
  expect_identical(model, before);
}

TEST(OptimizerStep, RejectsAGradientOfAnotherShapeOrDtypeBeforeAnyUpdate) {
  nn::Linear model = small_linear();
  const nn::Linear before = model;
  Adam adam;
  GradientsParams grads = fixed_grads(0);
  grads.insert("bias", f64({1.0, 2.0, 3.0}, {3}));
  EXPECT_INVALID(adam.step(model, grads, 0.1), "[Adam] gradient of bias is [3] (f64)",
                 "the param is [2] (f64)");
  grads.insert("bias", ops::cast(f64({1.0, 2.0}, {2}), DType::F32));
  EXPECT_INVALID(adam.step(model, grads, 0.1), "[Adam] gradient of bias is [2] (f32)");
  expect_identical(model, before);
  EXPECT_TRUE(adam.state().tensors.empty());
}

TEST(OptimizerConfig, RejectsOutOfRangeValuesNamingThem) {
  const double nan = std::nan("");
  EXPECT_INVALID(SgdConfig{.momentum = -0.5}.init(), "[Sgd] momentum -0.5 must be");
  EXPECT_INVALID(SgdConfig{.weight_decay = nan}.init(), "[Sgd] weight_decay nan");
  EXPECT_INVALID(SgdConfig{.nesterov = true}.init(), "[Sgd] nesterov needs momentum > 0");
  EXPECT_INVALID((SgdConfig{.momentum = 0.9, .dampening = 0.1, .nesterov = true}.init()),
                 "dampening 0.1");
  EXPECT_INVALID(AdamConfig{.beta1 = 1.0}.init(), "[Adam] beta1 1 must be in [0, 1)");
  EXPECT_INVALID(AdamConfig{.beta2 = -0.1}.init(), "[Adam] beta2 -0.1");
  EXPECT_INVALID(AdamConfig{.eps = -1e-8}.init(), "[Adam] eps");
  EXPECT_INVALID(AdamWConfig{.weight_decay = -0.01}.init(), "[AdamW] weight_decay -0.01");
  EXPECT_INVALID(RmsPropConfig{.alpha = -0.9}.init(), "[RmsProp] alpha -0.9");
  EXPECT_INVALID(RmsPropConfig{.momentum = nan}.init(), "[RmsProp] momentum nan");
  EXPECT_INVALID(AdagradConfig{.lr_decay = -1}.init(), "[Adagrad] lr_decay -1");
  EXPECT_INVALID(AdagradConfig{.initial_accumulator_value = -1}.init(),
                 "[Adagrad] initial_accumulator_value -1");
}

TEST(OptimizerConfig, DefaultsAreTorchOptims) {
  EXPECT_EQ(AdamConfig{}.init().config().beta2, 0.999);
  EXPECT_EQ(AdamWConfig{}.init().config().weight_decay, 0.01);
  EXPECT_EQ(RmsPropConfig{}.init().config().alpha, 0.99);
  EXPECT_EQ(AdagradConfig{}.init().config().eps, 1e-10);
}

}  // namespace
}  // namespace ember::optim::test
