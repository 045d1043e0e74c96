// Conv and ConvTranspose layers (nn/conv.h): PyTorch goldens with its state_dicts, PyTorch's
// default initialization bounds, and config validation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "ember/nn/conv.h"
#include "layer_golden.h"
#include "support/suite_device.h"

namespace ember::nn {
namespace {

using layer_golden::expect_golden;
using layer_golden::expect_invalid;
using layer_golden::golden_device;

TEST(ConvLayer, Conv1dMatchesPyTorch) {
  Conv1d conv =
      Conv1dConfig{
          .in_channels = 2, .out_channels = 4, .kernel_size = {3}, .stride = {2}, .padding = {1}}
          .init(golden_device());
  expect_golden<3>(conv, "conv1d");
}

TEST(ConvLayer, GroupedDilatedConv2dMatchesPyTorch) {
  Conv2d conv = Conv2dConfig{.in_channels = 4,
                             .out_channels = 6,
                             .kernel_size = {3, 2},
                             .stride = {2, 1},
                             .padding = {1, 0},
                             .dilation = {1, 2},
                             .groups = 2}
                    .init(golden_device());
  expect_golden<4>(conv, "conv2d");
}

TEST(ConvLayer, Conv2dWithoutBiasHasOnlyAWeight) {
  Conv2d conv =
      Conv2dConfig{.in_channels = 3, .out_channels = 2, .kernel_size = {1}, .bias = false}.init(
          golden_device());
  EXPECT_FALSE(conv.bias.has_value());
  expect_golden<4>(conv, "conv2d_no_bias");
}

TEST(ConvLayer, Conv3dMatchesPyTorch) {
  Conv3d conv =
      Conv3dConfig{.in_channels = 2, .out_channels = 3, .kernel_size = {2}, .padding = {1}}.init(
          golden_device());
  expect_golden<5>(conv, "conv3d");
}

TEST(ConvLayer, ConvTranspose1dMatchesPyTorch) {
  ConvTranspose1d conv = ConvTranspose1dConfig{
      .in_channels = 3,
      .out_channels = 4,
      .kernel_size = {3},
      .stride = {2},
      .padding = {1},
      .output_padding = {1}}.init(golden_device());
  expect_golden<3>(conv, "conv_transpose1d");
}

TEST(ConvLayer, GroupedConvTranspose2dMatchesPyTorch) {
  ConvTranspose2d conv = ConvTranspose2dConfig{.in_channels = 4,
                                               .out_channels = 6,
                                               .kernel_size = {2, 3},
                                               .stride = {2},
                                               .padding = {0, 1},
                                               .output_padding = {1, 0},
                                               .groups = 2}
                             .init(golden_device());
  expect_golden<4>(conv, "conv_transpose2d");
}

TEST(ConvLayer, ConvTranspose3dMatchesPyTorch) {
  ConvTranspose3d conv =
      ConvTranspose3dConfig{
          .in_channels = 2, .out_channels = 2, .kernel_size = {2}, .stride = {2}, .bias = false}
          .init(golden_device());
  expect_golden<5>(conv, "conv_transpose3d");
}

double max_abs(const TensorHandle& t) {
  const std::vector<double> v = ops::into_data(t).to_vector<double>();
  double m = 0;
  for (double x : v)
    m = std::max(m, std::abs(x));
  return m;
}

TEST(ConvLayer, DefaultInitIsUniformWithinOneOverSqrtFanIn) {
  // weight [16, 8, 3, 3]: fan_in 8 * 9 = 72, bound 1 / sqrt(72) for the weight (kaiming_uniform
  // with a = sqrt(5)) and the bias; 1152 draws come within 5% of the bound.
  const Conv2d conv = Conv2dConfig{8, 16, {3}}.init(ember::test::suite_device());
  EXPECT_EQ(conv.weight->shape(), Shape({16, 8, 3, 3}));
  const double bound = 1.0 / std::sqrt(72.0);
  EXPECT_LE(max_abs(conv.weight.handle()), bound);
  EXPECT_GT(max_abs(conv.weight.handle()), 0.95 * bound);
  ASSERT_TRUE(conv.bias.has_value());
  EXPECT_EQ(conv.bias->value().shape(), Shape({16}));
  EXPECT_LE(max_abs(conv.bias->handle()), bound);
}

TEST(ConvLayer, TransposedWeightIsInByOutOverGroupsAndItsFanInIsThatSecondDim) {
  // weight [in 4, out / groups 3, 5]: PyTorch's fan_in is 3 * 5 = 15 for this layout.
  const ConvTranspose1d conv =
      ConvTranspose1dConfig{.in_channels = 4, .out_channels = 6, .kernel_size = {5}, .groups = 2}
          .init(ember::test::suite_device());
  EXPECT_EQ(conv.weight->shape(), Shape({4, 3, 5}));
  EXPECT_LE(max_abs(conv.weight.handle()), 1.0 / std::sqrt(15.0));
  EXPECT_EQ(conv.bias->value().shape(), Shape({6}));
}

TEST(ConvLayer, InitializersCanBeChosen) {
  const Conv1d conv = Conv1dConfig{.in_channels = 1,
                                   .out_channels = 2,
                                   .kernel_size = {2},
                                   .weight_init = Initializer::constant(0.5),
                                   .bias_init = Initializer::zeros()}
                          .init(ember::test::suite_device());
  EXPECT_EQ(conv.weight->into_data().to_vector<double>(), std::vector<double>(4, 0.5));
  EXPECT_EQ(conv.bias->value().into_data().to_vector<double>(), std::vector<double>(2, 0.0));
}

TEST(ConvLayer, BadConfigsNameTheLayerAndTheValue) {
  const Device d = ember::test::suite_device();
  expect_invalid([&] { Conv2dConfig{0, 4, {3}}.init(d); }, {"[Conv2d]", "in_channels 0"});
  expect_invalid(
      [&] {
        Conv2dConfig{.in_channels = 4, .out_channels = 6, .kernel_size = {3}, .groups = 4}.init(d);
      },
      {"[Conv2d]", "groups 4", "out_channels 6"});
  expect_invalid(
      [&] {
        Conv2dConfig{1, 1, {3, 3, 3}}.init(d);
      },
      {"[Conv2d]", "kernel_size [3, 3, 3]", "1 or 2 values"});
  expect_invalid(
      [&] {
        Conv1dConfig{.in_channels = 1, .out_channels = 1, .kernel_size = {3}, .stride = {0}}.init(
            d);
      },
      {"[Conv1d]", "stride [0]", ">= 1"});
  expect_invalid(
      [&] {
        Conv3dConfig{.in_channels = 1, .out_channels = 1, .kernel_size = {3}, .padding = {-1}}.init(
            d);
      },
      {"[Conv3d]", "padding [-1]"});
  expect_invalid(
      [&] {
        ConvTranspose2dConfig{.in_channels = 1,
                              .out_channels = 1,
                              .kernel_size = {3},
                              .stride = {2},
                              .output_padding = {2}}
            .init(d);
      },
      {"[ConvTranspose2d]", "output_padding 2", "stride 2"});
}

TEST(ConvLayer, ForwardRejectsAnInputOfTheWrongChannelCount) {
  const Conv1d conv = Conv1dConfig{3, 2, {1}}.init(ember::test::suite_device());
  EXPECT_THROW(conv.forward(Tensor<3>::zeros({1, 2, 4}, ember::test::suite_device())),
               InvalidArgument);
}

}  // namespace
}  // namespace ember::nn
