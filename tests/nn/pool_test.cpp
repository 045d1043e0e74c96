// Pooling layers (nn/pool.h): PyTorch goldens, no state, and config validation.
#include <gtest/gtest.h>

#include "ember/nn/pool.h"
#include "layer_golden.h"
#include "support/suite_device.h"

namespace ember::nn {
namespace {

using layer_golden::expect_golden;
using layer_golden::expect_invalid;
using layer_golden::golden_device;

TEST(PoolLayer, MaxPool1dMatchesPyTorch) {
  MaxPool1d pool =
      MaxPool1dConfig{.kernel_size = {3}, .stride = {2}, .padding = {1}}.init(golden_device());
  expect_golden<3>(pool, "max_pool1d");
}

TEST(PoolLayer, MaxPool2dWithCeilModeMatchesPyTorch) {
  MaxPool2d pool =
      MaxPool2dConfig{.kernel_size = {3}, .stride = {2}, .padding = {1}, .ceil_mode = true}.init(
          golden_device());
  expect_golden<4>(pool, "max_pool2d");
}

TEST(PoolLayer, DilatedMaxPool2dMatchesPyTorch) {
  MaxPool2d pool =
      MaxPool2dConfig{.kernel_size = {2, 3}, .stride = {2, 1}, .dilation = {2, 1}}.init(
          golden_device());
  expect_golden<4>(pool, "max_pool2d_dilation");
}

TEST(PoolLayer, AvgPool1dWithoutPaddingInTheDivisorMatchesPyTorch) {
  AvgPool1d pool =
      AvgPool1dConfig{.kernel_size = {3}, .stride = {2}, .padding = {1}, .count_include_pad = false}
          .init(golden_device());
  expect_golden<3>(pool, "avg_pool1d");
}

TEST(PoolLayer, AvgPool2dWithCeilModeMatchesPyTorch) {
  AvgPool2d pool =
      AvgPool2dConfig{.kernel_size = {3, 2}, .stride = {2}, .padding = {1, 0}, .ceil_mode = true}
          .init(golden_device());
  expect_golden<4>(pool, "avg_pool2d");
}

TEST(PoolLayer, AvgPool2dWithADivisorOverrideMatchesPyTorch) {
  AvgPool2d pool = AvgPool2dConfig{.kernel_size = {2}, .divisor_override = 3}.init(golden_device());
  expect_golden<4>(pool, "avg_pool2d_divisor");
}

TEST(PoolLayer, AdaptiveAvgPoolsMatchPyTorch) {
  AdaptiveAvgPool1d pool1 = AdaptiveAvgPool1dConfig{{3}}.init(golden_device());
  expect_golden<3>(pool1, "adaptive_avg_pool1d");
  AdaptiveAvgPool2d pool2 = AdaptiveAvgPool2dConfig{{2, 3}}.init(golden_device());
  expect_golden<4>(pool2, "adaptive_avg_pool2d");
}

TEST(PoolLayer, PoolsHoldNoState) {
  EXPECT_TRUE(state(MaxPool2dConfig{.kernel_size = {2}}.init(ember::test::suite_device())).empty());
  EXPECT_TRUE(state(AdaptiveAvgPool2dConfig{{1}}.init(ember::test::suite_device())).empty());
}

TEST(PoolLayer, BadConfigsNameTheLayerAndTheValue) {
  const Device d = ember::test::suite_device();
  expect_invalid([&] { MaxPool2dConfig{.kernel_size = {0}}.init(d); },
                 {"[MaxPool2d]", "kernel_size [0]"});
  expect_invalid([&] { MaxPool1dConfig{.kernel_size = {2}, .padding = {2}}.init(d); },
                 {"[MaxPool1d]", "padding 2", "kernel_size 2"});
  expect_invalid([&] { MaxPool2dConfig{.kernel_size = {2}, .dilation = {0}}.init(d); },
                 {"[MaxPool2d]", "dilation [0]"});
  expect_invalid(
      [&] {
        AvgPool2dConfig{.kernel_size = {2}, .stride = {1, 1, 1}}.init(d);
      },
      {"[AvgPool2d]", "stride [1, 1, 1]"});
  expect_invalid([&] { AvgPool1dConfig{.kernel_size = {2}, .divisor_override = 0}.init(d); },
                 {"[AvgPool1d]", "divisor_override 0"});
  expect_invalid(
      [&] {
        AdaptiveAvgPool2dConfig{{2, 0}}.init(d);
      },
      {"[AdaptiveAvgPool2d]", "output_size [2, 0]"});
}

}  // namespace
}  // namespace ember::nn
