// Normalization layers (nn/normalization.h): PyTorch goldens (BatchNorm's running statistics
// after training steps included), BatchNorm's train/eval behaviour, initial values, config
// validation.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ember/nn/normalization.h"
#include "layer_golden.h"
#include "support/suite_device.h"

namespace ember::nn {
namespace {

using layer_golden::expect_golden;
using layer_golden::expect_invalid;
using layer_golden::golden_device;

std::vector<double> values(const TensorHandle& t) {
  return ops::into_data(t).to_vector<double>();
}

TEST(BatchNormLayer, TrainingStepsMatchPyTorchOutputsGradientsAndRunningStats) {
  BatchNorm bn = BatchNormConfig{3}.init(golden_device());
  expect_golden<4>(bn, "batch_norm_train");
}

TEST(BatchNormLayer, UnsetMomentumIsACumulativeAverageAsInPyTorch) {
  BatchNorm bn = BatchNormConfig{.num_features = 2, .momentum = std::nullopt}.init(golden_device());
  expect_golden<2>(bn, "batch_norm_cumulative");
}

TEST(BatchNormLayer, InferenceUsesTheRunningStatsAsInPyTorch) {
  BatchNorm bn = BatchNormConfig{.num_features = 3, .eps = 1e-3}.init(golden_device());
  eval(bn);
  expect_golden<3>(bn, "batch_norm_eval");
}

TEST(BatchNormLayer, WithoutAffineOn5dInputMatchesPyTorch) {
  BatchNorm bn =
      BatchNormConfig{.num_features = 2, .momentum = 0.3, .affine = false}.init(golden_device());
  EXPECT_FALSE(bn.weight.has_value());
  expect_golden<5>(bn, "batch_norm3d_no_affine");
}

TEST(BatchNormLayer, StartsAtPyTorchsValuesWithItsNames) {
  const BatchNorm bn = BatchNormConfig{2}.init(ember::test::suite_device());
  std::vector<std::string> names;
  for (const NamedTensor& t : state(bn))
    names.push_back(t.name);
  EXPECT_EQ(names, (std::vector<std::string>{"weight", "bias", "running_mean", "running_var",
                                             "num_batches_tracked"}));
  EXPECT_EQ(values(bn.weight->handle()), (std::vector<double>{1, 1}));
  EXPECT_EQ(values(bn.bias->handle()), (std::vector<double>{0, 0}));
  EXPECT_EQ(values(bn.running_mean->handle()), (std::vector<double>{0, 0}));
  EXPECT_EQ(values(bn.running_var->handle()), (std::vector<double>{1, 1}));
  EXPECT_EQ(values(bn.num_batches_tracked->handle()), (std::vector<double>{0}));
  EXPECT_EQ(named_parameters(bn).size(), 2u);
}

TEST(BatchNormLayer, InferenceLeavesTheRunningStatsAlone) {
  // Fresh stats (mean 0, var 1): y = x / sqrt(1 + eps).
  BatchNorm bn = BatchNormConfig{1}.init(ember::test::suite_device());
  eval(bn);
  const Tensor<2> x = Tensor<2>::from_data(TensorData(std::vector<double>{1, 3}, Shape{2, 1}),
                                           ember::test::suite_device());
  const std::vector<double> y = bn.forward(x).into_data().to_vector<double>();
  EXPECT_NEAR(y[0], 1.0 / std::sqrt(1.0 + 1e-5), 1e-12);
  EXPECT_NEAR(y[1], 3.0 / std::sqrt(1.0 + 1e-5), 1e-12);
  EXPECT_EQ(values(bn.running_mean->handle()), (std::vector<double>{0}));
  EXPECT_EQ(values(bn.num_batches_tracked->handle()), (std::vector<double>{0}));
}

TEST(BatchNormLayer, WithoutRunningStatsInferenceUsesTheBatch) {
  // x = [1, 3]: batch mean 2, biased variance 1, so y = [-1, 1] / sqrt(1 + eps) in both modes.
  BatchNorm bn = BatchNormConfig{.num_features = 1, .track_running_stats = false}.init(
      ember::test::suite_device());
  EXPECT_TRUE(state(bn).size() == 2u);
  eval(bn);
  const Tensor<2> x = Tensor<2>::from_data(TensorData(std::vector<double>{1, 3}, Shape{2, 1}),
                                           ember::test::suite_device());
  const std::vector<double> y = bn.forward(x).into_data().to_vector<double>();
  EXPECT_NEAR(y[0], -1.0 / std::sqrt(1.0 + 1e-5), 1e-12);
  EXPECT_NEAR(y[1], 1.0 / std::sqrt(1.0 + 1e-5), 1e-12);
}

TEST(BatchNormLayer, ARefusedBatchLeavesTheStatsAsTheyWere) {
  BatchNorm bn = BatchNormConfig{2}.init(ember::test::suite_device());
  expect_invalid(
      [&] {
        bn.forward(Tensor<2>::ones({1, 2}, ember::test::suite_device()));
      },
      {"[batch_norm]", "training needs more"});
  EXPECT_EQ(values(bn.num_batches_tracked->handle()), (std::vector<double>{0}));
  expect_invalid(
      [&] {
        bn.forward(Tensor<3>::ones({2, 3, 4}, ember::test::suite_device()));
      },
      {"[BatchNorm]", "x [2, 3, 4]", "[batch, 2, ...]"});
}

TEST(BatchNormLayer, BadConfigsNameTheLayerAndTheValue) {
  const Device d = ember::test::suite_device();
  expect_invalid([&] { BatchNormConfig{0}.init(d); }, {"[BatchNorm]", "num_features 0"});
  expect_invalid([&] { BatchNormConfig{.num_features = 2, .eps = -1.0}.init(d); },
                 {"[BatchNorm]", "eps -1"});
  expect_invalid([&] { BatchNormConfig{.num_features = 2, .momentum = 1.5}.init(d); },
                 {"[BatchNorm]", "momentum 1.5"});
}

TEST(LayerNormLayer, LastDimMatchesPyTorchWithGradients) {
  LayerNorm norm = LayerNormConfig{4}.init(golden_device());
  expect_golden<3>(norm, "layer_norm");
}

TEST(LayerNormLayer, TwoTrailingDimsMatchPyTorch) {
  LayerNormNd<2> norm =
      LayerNormNdConfig<2>{.normalized_shape = {3, 4}, .eps = 1e-3}.init(golden_device());
  EXPECT_EQ(norm.weight->value().shape(), Shape({3, 4}));
  expect_golden<3>(norm, "layer_norm_2d");
}

TEST(LayerNormLayer, AffineCanBeLeftOutWhollyOrJustTheBias) {
  EXPECT_TRUE(state(LayerNormConfig{.normalized_shape = {4}, .elementwise_affine = false}.init(
                        ember::test::suite_device()))
                  .empty());
  const LayerNorm no_bias =
      LayerNormConfig{.normalized_shape = {4}, .bias = false}.init(ember::test::suite_device());
  EXPECT_TRUE(no_bias.weight.has_value());
  EXPECT_FALSE(no_bias.bias.has_value());
}

TEST(GroupNormLayer, MatchesPyTorch) {
  GroupNorm norm = GroupNormConfig{2, 4}.init(golden_device());
  expect_golden<3>(norm, "group_norm");
}

TEST(RmsNormLayer, MatchesTheFormulaInPyTorchWithGradients) {
  RmsNorm norm = RmsNormConfig{4}.init(golden_device());
  expect_golden<3>(norm, "rms_norm");
}

TEST(NormLayers, BadConfigsNameTheLayerAndTheValue) {
  const Device d = ember::test::suite_device();
  expect_invalid([&] { LayerNormConfig{0}.init(d); }, {"[LayerNorm]", "normalized_shape [0]"});
  expect_invalid([&] { LayerNormConfig{.normalized_shape = {2}, .eps = std::nan("")}.init(d); },
                 {"[LayerNorm]", "eps nan"});
  expect_invalid(
      [&] {
        RmsNormNdConfig<2>{{2, -1}}.init(d);
      },
      {"[RmsNorm]", "normalized_shape [2, -1]"});
  expect_invalid(
      [&] {
        GroupNormConfig{3, 4}.init(d);
      },
      {"[GroupNorm]", "num_groups 3", "num_channels 4"});
  expect_invalid([&] { GroupNormConfig{0, 4}.init(d); }, {"[GroupNorm]", "num_groups 0"});
}

}  // namespace
}  // namespace ember::nn
