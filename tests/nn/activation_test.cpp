// Activation layers (nn/activation.h): a PyTorch golden for each, Prelu's learned slopes and
// gradients, built through their Configs; config validation.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ember/nn/activation.h"
#include "layer_golden.h"
#include "support/suite_device.h"

namespace ember::nn {
namespace {

using layer_golden::expect_golden;
using layer_golden::expect_invalid;
using layer_golden::golden_device;

/// Builds the layer from config on the golden device and runs the rank-2 case name.
template <typename Config>
void expect_activation_golden(const Config& config, const std::string& name) {
  auto layer = config.init(golden_device());
  expect_golden<2>(layer, name);
}

TEST(ActivationLayer, OptionFreeActivationsMatchPyTorch) {
  expect_activation_golden(ReluConfig{}, "relu");
  expect_activation_golden(SigmoidConfig{}, "sigmoid");
  expect_activation_golden(TanhConfig{}, "tanh");
  expect_activation_golden(SiluConfig{}, "silu");
  expect_activation_golden(MishConfig{}, "mish");
  expect_activation_golden(SeluConfig{}, "selu");
  expect_activation_golden(HardSigmoidConfig{}, "hard_sigmoid");
  expect_activation_golden(HardSwishConfig{}, "hard_swish");
}

TEST(ActivationLayer, ActivationsWithOptionsMatchPyTorch) {
  expect_activation_golden(LeakyReluConfig{0.2}, "leaky_relu");
  expect_activation_golden(GeluConfig{}, "gelu");
  expect_activation_golden(GeluConfig{GeluApproximation::Tanh}, "gelu_tanh");
  expect_activation_golden(SoftplusConfig{2.0}, "softplus");
  expect_activation_golden(EluConfig{0.5}, "elu");
  expect_activation_golden(CeluConfig{1.5}, "celu");
}

TEST(ActivationLayer, SoftmaxAndLogSoftmaxAlongTheirDimMatchPyTorch) {
  Softmax softmax = SoftmaxConfig{1}.init(golden_device());
  expect_golden<3>(softmax, "softmax");
  LogSoftmax log_softmax = LogSoftmaxConfig{-1}.init(golden_device());
  expect_golden<3>(log_softmax, "log_softmax");
}

TEST(ActivationLayer, PreluPerChannelMatchesPyTorchWithGradients) {
  Prelu prelu = PreluConfig{3}.init(golden_device());
  expect_golden<3>(prelu, "prelu");
}

TEST(ActivationLayer, PreluStartsAtItsInitValue) {
  const Prelu prelu =
      PreluConfig{.num_parameters = 2, .init_value = 0.1}.init(ember::test::suite_device());
  EXPECT_EQ(prelu.weight->into_data().to_vector<double>(), (std::vector<double>{0.1f, 0.1f}));
  EXPECT_EQ(named_parameters(prelu).front().name, "weight");
  EXPECT_TRUE(state(Relu{}).empty());
}

TEST(ActivationLayer, BadConfigsNameTheLayerAndTheValue) {
  const Device d = ember::test::suite_device();
  const double inf = std::numeric_limits<double>::infinity();
  expect_invalid([&] { SoftplusConfig{0.0}.init(d); }, {"[Softplus]", "beta 0", "non-zero"});
  expect_invalid([&] { CeluConfig{0.0}.init(d); }, {"[Celu]", "alpha 0"});
  expect_invalid([&] { EluConfig{inf}.init(d); }, {"[Elu]", "alpha inf", "finite"});
  expect_invalid([&] { LeakyReluConfig{std::nan("")}.init(d); },
                 {"[LeakyRelu]", "negative_slope nan"});
  expect_invalid([&] { PreluConfig{0}.init(d); }, {"[Prelu]", "num_parameters 0"});
}

}  // namespace
}  // namespace ember::nn
