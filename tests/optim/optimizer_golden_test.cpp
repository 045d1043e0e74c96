// Each optimizer, a few steps on a Linear with fixed gradients, against torch.optim (golden.json,
// written by generate.py: the same initial values and gradients, in float64).
#include <memory>
#include <string>

#include "optim_test_util.h"

namespace ember::optim::test {
namespace {

template <typename Config>
void read(const json& config, const char* key, Config& value) {
  if (config.contains(key)) value = config.at(key).get<Config>();
}

std::unique_ptr<Optimizer> make_sgd(const json& c) {
  SgdConfig config;
  read(c, "momentum", config.momentum);
  read(c, "dampening", config.dampening);
  read(c, "weight_decay", config.weight_decay);
  read(c, "nesterov", config.nesterov);
  return std::make_unique<Sgd>(config);
}

/// AdamConfig and AdamWConfig have the same fields.
template <typename O, typename Config>
std::unique_ptr<Optimizer> make_adam(const json& c) {
  Config config;
  read(c, "beta1", config.beta1);
  read(c, "beta2", config.beta2);
  read(c, "eps", config.eps);
  read(c, "weight_decay", config.weight_decay);
  read(c, "amsgrad", config.amsgrad);
  return std::make_unique<O>(config);
}

std::unique_ptr<Optimizer> make_rmsprop(const json& c) {
  RmsPropConfig config;
  read(c, "alpha", config.alpha);
  read(c, "eps", config.eps);
  read(c, "weight_decay", config.weight_decay);
  read(c, "momentum", config.momentum);
  read(c, "centered", config.centered);
  return std::make_unique<RmsProp>(config);
}

std::unique_ptr<Optimizer> make_adagrad(const json& c) {
  AdagradConfig config;
  read(c, "lr_decay", config.lr_decay);
  read(c, "weight_decay", config.weight_decay);
  read(c, "initial_accumulator_value", config.initial_accumulator_value);
  read(c, "eps", config.eps);
  return std::make_unique<Adagrad>(config);
}

std::unique_ptr<Optimizer> make_optimizer(const std::string& kind, const json& config) {
  if (kind == "sgd") return make_sgd(config);
  if (kind == "adam") return make_adam<Adam, AdamConfig>(config);
  if (kind == "adamw") return make_adam<AdamW, AdamWConfig>(config);
  if (kind == "rmsprop") return make_rmsprop(config);
  if (kind == "adagrad") return make_adagrad(config);
  throw std::runtime_error("golden.json names an unknown optimizer " + kind);
}

GradientsParams grads_of(const json& step) {
  GradientsParams grads;
  grads.insert("weight", tensor_of(step.at("weight")));
  grads.insert("bias", tensor_of(step.at("bias")));
  return grads;
}

class OptimizerGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(OptimizerGolden, MatchesTorchOptimStepByStep) {
  const json* found = nullptr;
  for (const json& c : golden().at("optimizers")) {
    if (c.at("name") == GetParam()) found = &c;
  }
  ASSERT_NE(found, nullptr) << "no golden case " << GetParam();
  const json& c = *found;
  std::unique_ptr<Optimizer> optimizer = make_optimizer(c.at("optimizer"), c.at("config"));
  nn::Linear model =
      linear(tensor_of(c.at("init").at("weight")), tensor_of(c.at("init").at("bias")));
  const double lr = c.at("lr");
  for (std::size_t step = 0; step < c.at("grads").size(); ++step) {
    SCOPED_TRACE("after step " + std::to_string(step + 1));
    optimizer->step(model, grads_of(c.at("grads")[step]), lr);
    expect_near(model.weight.handle(), c.at("after")[step].at("weight"));
    expect_near(model.bias->handle(), c.at("after")[step].at("bias"));
  }
}

INSTANTIATE_TEST_SUITE_P(Torch, OptimizerGolden,
                         ::testing::Values("sgd", "sgd_momentum", "sgd_nesterov", "adam",
                                           "adam_decay_amsgrad", "adamw", "adamw_amsgrad",
                                           "rmsprop", "rmsprop_centered_momentum", "adagrad",
                                           "adagrad_decay"),
                         [](const auto& info) { return info.param; });

TEST(OptimizerGolden, EveryGoldenCaseIsRun) {
  EXPECT_EQ(golden().at("optimizers").size(), 11u);
}

}  // namespace
}  // namespace ember::optim::test
