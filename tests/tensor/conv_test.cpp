// The convolutions of ember::module (conv1d/2d/3d, conv_transpose1d/2d/3d): values worked out by
// hand, option defaults, one value vs one per spatial dim, dtype promotion, and the bad inputs
// each rejected with an InvalidArgument naming the op.
#include <cstdint>
#include <vector>

#include "tensor_test_util.h"

namespace ember::test {
namespace {

using module::ConvOptions;
using module::ConvTransposeOptions;

/// 1, 2, ..., n as f32 values.
std::vector<float> one_to_n(int n) {
  std::vector<float> values;
  for (int i = 1; i <= n; ++i)
    values.push_back(static_cast<float>(i));
  return values;
}

TEST(Conv, Conv2dWithDefaultOptions) {
  // [[1, 2, 3], [4, 5, 6], [7, 8, 9]] summed over each 2x2 window: 1 + 2 + 4 + 5 = 12, 16, 24,
  // 28; then plus bias 0.5.
  const auto x = floats<4>(one_to_n(9), Shape{1, 1, 3, 3});
  const auto w = floats<4>({1, 1, 1, 1}, Shape{1, 1, 2, 2});
  const Tensor<4> out = module::conv2d(x, w);
  EXPECT_EQ(out.shape(), (Shape{1, 1, 2, 2}));
  EXPECT_EQ(values<float>(out), (std::vector<float>{12, 16, 24, 28}));
  const auto bias = floats<1>({0.5f}, Shape{1});
  EXPECT_EQ(values<float>(module::conv2d(x, w, bias)),
            (std::vector<float>{12.5f, 16.5f, 24.5f, 28.5f}));
}

TEST(Conv, OneValueStandsForEverySpatialDim) {
  const auto x = floats<4>(one_to_n(16), Shape{1, 1, 4, 4});
  const auto w = floats<4>({1}, Shape{1, 1, 1, 1});
  // Stride 2 with a 1x1 kernel picks rows 0 and 2, columns 0 and 2: 1, 3, 9, 11.
  const std::vector<float> picked{1, 3, 9, 11};
  EXPECT_EQ(values<float>(module::conv2d(x, w, std::nullopt, {.stride = {2}})), picked);
  EXPECT_EQ(values<float>(module::conv2d(x, w, std::nullopt, {.stride = {2, 2}})), picked);
}

TEST(Conv, PerDimPaddingAndDilation) {
  // Padding only along H: a zero row above and below the 2x2 input.
  const auto x = floats<4>({1, 2, 3, 4}, Shape{1, 1, 2, 2});
  const auto one = floats<4>({1}, Shape{1, 1, 1, 1});
  const Tensor<4> padded = module::conv2d(x, one, std::nullopt, {.padding = {1, 0}});
  EXPECT_EQ(padded.shape(), (Shape{1, 1, 4, 2}));
  EXPECT_EQ(values<float>(padded), (std::vector<float>{0, 0, 1, 2, 3, 4, 0, 0}));
  // conv1d, dilation 2: kernel [1, 10] reads x[i] and x[i + 2]: 1 + 30, 2 + 40.
  const auto line = floats<3>({1, 2, 3, 4}, Shape{1, 1, 4});
  const auto kernel = floats<3>({1, 10}, Shape{1, 1, 2});
  EXPECT_EQ(values<float>(module::conv1d(line, kernel, std::nullopt, {.dilation = {2}})),
            (std::vector<float>{31, 42}));
}

TEST(Conv, GroupsAndThreeSpatialDims) {
  // Groups 2 with 1x1x1 kernels 2 and 3: each channel scaled on its own.
  const auto x = floats<5>(one_to_n(4), Shape{1, 2, 2, 1, 1});
  const auto w = floats<5>({2, 3}, Shape{2, 1, 1, 1, 1});
  const Tensor<5> out = module::conv3d(x, w, std::nullopt, {.groups = 2});
  EXPECT_EQ(out.shape(), (Shape{1, 2, 2, 1, 1}));
  EXPECT_EQ(values<float>(out), (std::vector<float>{2, 4, 9, 12}));
}

TEST(ConvTranspose, ScattersTheKernel) {
  // Input i adds x[i] * [1, 10, 100] from output 2i: [1, 10, 100 + 2, 20, 200].
  const auto x = floats<3>({1, 2}, Shape{1, 1, 2});
  const auto w = floats<3>({1, 10, 100}, Shape{1, 1, 3});
  EXPECT_EQ(values<float>(module::conv_transpose1d(x, w, std::nullopt, {.stride = {2}})),
            (std::vector<float>{1, 10, 102, 20, 200}));
  // output_padding 1 adds an output no input reaches; padding 1 removes one from each end.
  EXPECT_EQ(values<float>(module::conv_transpose1d(
                x, w, std::nullopt, {.stride = {2}, .padding = {1}, .output_padding = {1}})),
            (std::vector<float>{10, 102, 20, 200}));
}

TEST(ConvTranspose, ShapesFollowPyTorch) {
  // (3 - 1) * 2 - 2 * 1 + 1 * (3 - 1) + 1 + 1 = 6 and (4 - 1) * 1 + 2 * (2 - 1) + 0 + 1 = 6;
  // weight [C_in 2, C_out / groups 3, 3, 2] with groups 2: 6 channels.
  const Tensor<4> out = module::conv_transpose2d(Tensor<4>(f32({2, 2, 3, 4})),
                                                 Tensor<4>(f32({2, 3, 3, 2})), Tensor<1>(f32({6})),
                                                 {.stride = {2, 1},
                                                  .padding = {1, 0},
                                                  .output_padding = {1, 0},
                                                  .dilation = {1, 2},
                                                  .groups = 2});
  EXPECT_EQ(out.shape(), (Shape{2, 6, 6, 6}));
  const Tensor<5> volume =
      module::conv_transpose3d(Tensor<5>(f32({1, 1, 2, 2, 2})), Tensor<5>(f32({1, 4, 2, 2, 2})));
  EXPECT_EQ(volume.shape(), (Shape{1, 4, 3, 3, 3}));
}

TEST(Conv, PromotesOperandsToOneDtype) {
  const TensorHandle x = handle({1, 2, 3}, Shape{1, 1, 3}, DType::F16);
  const TensorHandle w = handle({1, 1}, Shape{1, 1, 2}, DType::F32);
  const TensorHandle bias = handle({0.5}, Shape{1}, DType::F64);
  const TensorHandle out = ops::conv(x, w, bias, {});
  EXPECT_EQ(out.dtype(), DType::F64);
  EXPECT_EQ(values<double>(out), (std::vector<double>{3.5, 5.5}));
}

// ---- bad input -----------------------------------------------------------------------------

TEST(ConvBadInput, WrongRanks) {
  EXPECT_INVALID(ops::conv(f32({2, 3}), f32({1, 3}), std::nullopt, {}), "[conv]",
                 "expects x of shape [N, C, *spatial]", "[2, 3]");
  EXPECT_INVALID(ops::conv_transpose(f32({1, 1, 1, 1, 1, 1}), f32({1, 1, 1}), std::nullopt, {}),
                 "[conv_transpose]", "1 to 3 spatial dims");
  EXPECT_INVALID(ops::conv(f32({1, 1, 3, 3}), f32({1, 1, 3}), std::nullopt, {}), "[conv2d]",
                 "ranks 4 and 3 differ");
  EXPECT_INVALID(ops::conv(TensorHandle(), f32({1, 1, 3}), std::nullopt, {}), "[conv]");
}

TEST(ConvBadInput, ChannelsAndGroups) {
  EXPECT_INVALID(module::conv2d(Tensor<4>(f32({1, 2, 4, 4})), Tensor<4>(f32({1, 3, 2, 2}))),
                 "[conv2d]", "weight [1, 3, 2, 2] must have dim 1 = 2");
  EXPECT_INVALID(module::conv2d(Tensor<4>(f32({1, 2, 4, 4})), Tensor<4>(f32({3, 1, 2, 2})),
                                std::nullopt, {.groups = 3}),
                 "[conv2d]", "groups 3 does not divide the 2 channels");
  EXPECT_INVALID(module::conv1d(Tensor<3>(f32({1, 2, 4})), Tensor<3>(f32({2, 2, 2})), std::nullopt,
                                {.groups = 0}),
                 "[conv1d]", "groups 0 must be >= 1");
  EXPECT_INVALID(module::conv_transpose1d(Tensor<3>(f32({1, 2, 4})), Tensor<3>(f32({3, 1, 2}))),
                 "[conv_transpose1d]", "weight [3, 1, 2] must have dim 0 = 2");
  EXPECT_INVALID(
      module::conv1d(Tensor<3>(f32({1, 2, 4})), Tensor<3>(f32({3, 2, 2})), Tensor<1>(f32({2}))),
      "[conv1d]", "bias [2] must be [3]");
}

TEST(ConvBadInput, StridePaddingAndDilationOutOfRange) {
  const Tensor<4> x(f32({1, 1, 4, 4}));
  const Tensor<4> w(f32({1, 1, 2, 2}));
  EXPECT_INVALID(module::conv2d(x, w, std::nullopt, {.stride = {0}}), "[conv2d]",
                 "stride [0, 0] must be >= 1");
  EXPECT_INVALID(module::conv2d(x, w, std::nullopt, {.stride = {1, -2}}), "[conv2d]",
                 "stride [1, -2] must be >= 1");
  EXPECT_INVALID(module::conv2d(x, w, std::nullopt, {.padding = {-1}}), "[conv2d]",
                 "padding [-1, -1] must be >= 0");
  EXPECT_INVALID(module::conv2d(x, w, std::nullopt, {.dilation = {0}}), "[conv2d]",
                 "dilation [0, 0] must be >= 1");
  EXPECT_INVALID(
      module::conv_transpose2d(x, w, std::nullopt, {.stride = {2}, .output_padding = {2}}),
      "[conv_transpose2d]", "output_padding [2, 2] must be smaller than stride [2, 2]");
}

TEST(ConvBadInput, OutputSizeBelowOne) {
  EXPECT_INVALID(module::conv2d(Tensor<4>(f32({1, 1, 2, 2})), Tensor<4>(f32({1, 1, 3, 3}))),
                 "[conv2d]", "output size < 1 in spatial dim 0", "padded input 2",
                 "dilated kernel 3");
  EXPECT_INVALID(module::conv_transpose1d(Tensor<3>(f32({1, 1, 1})), Tensor<3>(f32({1, 1, 1})),
                                          std::nullopt, {.padding = {1}}),
                 "[conv_transpose1d]", "output size -1 < 1");
}

TEST(ConvBadInput, NonFloatTensors) {
  const TensorHandle ints = handle({1, 2, 3}, Shape{1, 1, 3}, DType::I64);
  const TensorHandle bools = handle({1, 0}, Shape{1, 1, 2}, DType::Bool);
  EXPECT_INVALID(ops::conv(ints, f32({1, 1, 2}), std::nullopt, {}), "[conv1d]",
                 "expects a Float tensor", "i64");
  EXPECT_INVALID(ops::conv(f32({1, 1, 3}), bools, std::nullopt, {}), "[conv1d]",
                 "expects a Float tensor", "bool");
  EXPECT_INVALID(
      ops::conv_transpose(f32({1, 1, 3}), f32({1, 1, 2}), handle({1}, Shape{1}, DType::I32), {}),
      "[conv_transpose1d]", "expects a Float tensor", "i32");
}

TEST(ConvBadInput, WrongOptionCounts) {
  const Tensor<4> x(f32({1, 1, 4, 4}));
  const Tensor<4> w(f32({1, 1, 2, 2}));
  EXPECT_INVALID(module::conv2d(x, w, std::nullopt, {.stride = {1, 1, 1}}), "[conv2d]",
                 "stride has 3 values; expected 1 or 2");
  EXPECT_INVALID(module::conv2d(x, w, std::nullopt, {.padding = {}}), "[conv2d]",
                 "padding has 0 values");
  EXPECT_INVALID(module::conv_transpose2d(x, w, std::nullopt, {.output_padding = {0, 0, 0}}),
                 "[conv_transpose2d]", "output_padding has 3 values");
}

}  // namespace
}  // namespace ember::test
