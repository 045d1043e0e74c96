// nn::Dropout (nn/dropout.h): the identity in inference (PyTorch golden), zeroes and rescales in
// training, follows nn::train / nn::eval, is reproducible with Device::seed; config validation.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ember/nn/dropout.h"
#include "layer_golden.h"
#include "support/suite_device.h"

namespace ember::nn {
namespace {

using layer_golden::expect_golden;
using layer_golden::expect_invalid;
using layer_golden::golden_device;

TEST(DropoutLayer, InferenceIsTheIdentityAsInPyTorch) {
  Dropout dropout = DropoutConfig{0.3}.init(golden_device());
  eval(dropout);
  EXPECT_FALSE(dropout.training);
  expect_golden<2>(dropout, "dropout_eval");
}

TEST(DropoutLayer, TrainingZeroesAboutPAndScalesTheRestByOneOverOneMinusP) {
  const Device device = ember::test::suite_device();
  Dropout dropout = DropoutConfig{0.25}.init(device);
  EXPECT_TRUE(dropout.training);
  const std::vector<double> y =
      dropout.forward(Tensor<2>::full({100, 40}, 3.0, device)).into_data().to_vector<double>();
  int zeros = 0;
  for (double v : y) {
    if (v == 0.0) {
      ++zeros;
    } else {
      EXPECT_NEAR(v, 3.0 / 0.75, 1e-6);  // f32
    }
  }
  // 4000 Bernoulli(0.25) draws: 1000 expected, std about 27.
  EXPECT_NEAR(zeros, 1000, 150);
}

TEST(DropoutLayer, SeedMakesTheMaskReproducible) {
  const Device device = ember::test::suite_device();
  const Dropout dropout = DropoutConfig{0.5}.init(device);
  const Tensor<1> x = Tensor<1>::ones({64}, device);
  device.seed(11);
  const TensorData first = dropout.forward(x).into_data();
  device.seed(11);
  EXPECT_EQ(dropout.forward(x).into_data(), first);
}

TEST(DropoutLayer, ZeroPIsTheIdentityInTraining) {
  const Device device = ember::test::suite_device();
  const Tensor<1> x = Tensor<1>::from_floats({1.0, -2.0, 3.0}, device);
  EXPECT_EQ(DropoutConfig{0.0}.init(device).forward(x).into_data(), x.into_data());
}

TEST(DropoutLayer, PMustBeInZeroToOne) {
  const Device d = ember::test::suite_device();
  expect_invalid([&] { DropoutConfig{1.0}.init(d); }, {"[Dropout]", "p 1 ", "[0, 1)"});
  expect_invalid([&] { DropoutConfig{-0.5}.init(d); }, {"[Dropout]", "p -0.5"});
  expect_invalid([&] { DropoutConfig{std::nan("")}.init(d); }, {"[Dropout]", "p nan"});
}

}  // namespace
}  // namespace ember::nn
