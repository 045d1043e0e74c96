// Rules and names of Conv (both directions) and ConvWeightGrad. Expected output sizes are
// worked out by hand from PyTorch's formulas in the comments.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "ir_test_support.h"

namespace ember::ir {
namespace {

using test::infer_error;
using test::infer_one;
using test::meta;

/// stride 1, padding 0, dilation 1 (and output_padding 0) in each of n spatial dims.
ConvGeometry unit_geometry(std::size_t n, bool transposed = false) {
  return {std::vector<int64_t>(n, 1),
          std::vector<int64_t>(n, 0),
          std::vector<int64_t>(n, 1),
          std::vector<int64_t>(n, 0),
          1,
          transposed};
}

Conv conv(std::size_t n) {
  return {unit_geometry(n)};
}
Conv conv_transpose(std::size_t n) {
  return {unit_geometry(n, true)};
}

TEST(IrConv, NamesFollowTheSpatialRankAndDirection) {
  EXPECT_EQ(name(conv(1)), "conv1d");
  EXPECT_EQ(name(conv(2)), "conv2d");
  EXPECT_EQ(name(conv(3)), "conv3d");
  EXPECT_EQ(name(conv_transpose(2)), "conv_transpose2d");
  EXPECT_EQ(name(ConvWeightGrad{unit_geometry(2), Shape{1, 1, 1, 1}}), "conv2d_weight_backward");
  EXPECT_EQ(name(ConvWeightGrad{unit_geometry(1, true), Shape{1, 1, 1}}),
            "conv_transpose1d_weight_backward");
}

TEST(IrConv, OutputSizeWithStridePaddingAndDilation) {
  Conv op = conv(2);
  op.geometry.stride = {2, 1};
  op.geometry.padding = {1, 0};
  op.geometry.dilation = {1, 2};
  // H: floor((5 + 2 - 1 * (3 - 1) - 1) / 2) + 1 = 3; W: floor((7 + 0 - 2 * (2 - 1) - 1) / 1) + 1
  // = 5.
  EXPECT_EQ(infer_one(op, {meta({2, 3, 5, 7}), meta({4, 3, 3, 2})}), meta({2, 4, 3, 5}));
  // floor((4 - 3) / 2) + 1 = 1: the floor drops the last input.
  op.geometry.padding = {0, 0};
  op.geometry.dilation = {1, 1};
  EXPECT_EQ(infer_one(op, {meta({1, 1, 4, 2}), meta({1, 1, 3, 2})}), meta({1, 1, 1, 1}));
}

TEST(IrConv, OneToThreeSpatialDimsInEveryFloatDtype) {
  for (DType dtype : {DType::F64, DType::F32, DType::F16, DType::BF16}) {
    EXPECT_EQ(infer_one(conv(1), {meta({2, 3, 5}, dtype), meta({4, 3, 2}, dtype)}),
              meta({2, 4, 4}, dtype));
    EXPECT_EQ(infer_one(conv(3), {meta({1, 1, 4, 4, 4}, dtype), meta({2, 1, 2, 3, 4}, dtype),
                                  meta({2}, dtype)}),
              meta({1, 2, 3, 2, 1}, dtype));
  }
}

TEST(IrConv, GroupsSplitTheChannels) {
  Conv op = conv(1);
  op.geometry.groups = 2;
  // x has 4 channels, 2 per group; weight [6, 4 / 2, 3]: 6 output channels, 3 per group.
  EXPECT_EQ(infer_one(op, {meta({1, 4, 5}), meta({6, 2, 3})}), meta({1, 6, 3}));
  op = conv_transpose(1);
  op.geometry.groups = 2;
  // transposed weight [C_in = 2, C_out / groups = 3, 3]: 6 output channels.
  EXPECT_EQ(infer_one(op, {meta({1, 2, 5}), meta({2, 3, 3})}), meta({1, 6, 7}));
}

TEST(IrConv, TransposedOutputSize) {
  Conv op = conv_transpose(2);
  op.geometry.stride = {2, 3};
  op.geometry.padding = {1, 0};
  op.geometry.dilation = {1, 2};
  op.geometry.output_padding = {1, 2};
  // H: (3 - 1) * 2 - 2 * 1 + 1 * (3 - 1) + 1 + 1 = 6; W: (2 - 1) * 3 - 0 + 2 * (2 - 1) + 2 + 1 = 8.
  EXPECT_EQ(infer_one(op, {meta({2, 2, 3, 2}), meta({2, 5, 3, 2}), meta({5})}), meta({2, 5, 6, 8}));
  // output_padding may reach the stride when it stays below the dilation: (2 - 1) * 1 + 2 * (2 -
  // 1) + 1 + 1 = 5.
  Conv dilated = conv_transpose(1);
  dilated.geometry.dilation = {2};
  dilated.geometry.output_padding = {1};
  EXPECT_EQ(infer_one(dilated, {meta({1, 1, 2}), meta({1, 1, 2})}), meta({1, 1, 5}));
}

TEST(IrConv, EmptyBatchAndChannelsArePassedThrough) {
  EXPECT_EQ(infer_one(conv(1), {meta({0, 3, 5}), meta({4, 3, 2})}), meta({0, 4, 4}));
  EXPECT_EQ(infer_one(conv(1), {meta({2, 0, 5}), meta({4, 0, 2})}), meta({2, 4, 4}));
  // An empty input is allowed where the padding alone makes room for the kernel.
  Conv padded = conv(1);
  padded.geometry.padding = {1};
  EXPECT_EQ(infer_one(padded, {meta({1, 1, 0}), meta({1, 1, 2})}), meta({1, 1, 1}));
}

TEST(IrConv, RejectsArityAndDtypes) {
  EXPECT_EQ(infer_error(conv(1), {meta({1, 1, 3})}),
            "[conv1d] expects 2 or 3 inputs (x, weight, bias), got 1");
  EXPECT_EQ(infer_error(conv(1), {meta({1, 1, 3}), meta({1, 1, 1}), meta({1}), meta({1})}),
            "[conv1d] expects 2 or 3 inputs (x, weight, bias), got 4");
  EXPECT_EQ(infer_error(conv(1), {meta({1, 1, 3}, DType::I32), meta({1, 1, 1}, DType::I32)}),
            "[conv1d] expects a float dtype, got i32");
  EXPECT_EQ(infer_error(conv(1), {meta({1, 1, 3}), meta({1, 1, 1}, DType::F64)}),
            "[conv1d] x dtype f32 and weight dtype f64 differ");
  EXPECT_EQ(infer_error(conv(1), {meta({1, 1, 3}), meta({1, 1, 1}), meta({1}, DType::F16)}),
            "[conv1d] x dtype f32 and bias dtype f16 differ");
}

TEST(IrConv, RejectsRanks) {
  EXPECT_EQ(infer_error(conv(0), {meta({2, 3}), meta({2, 3})}),
            "[conv0d] expects x of shape [N, C, *spatial] with 1 to 3 spatial dims, got [2, 3]");
  EXPECT_EQ(infer_error(conv(4), {meta({1, 1, 1, 1, 1, 1}), meta({1, 1, 1, 1, 1, 1})}),
            "[conv4d] expects x of shape [N, C, *spatial] with 1 to 3 spatial dims, got [1, 1, 1, "
            "1, 1, 1]");
  EXPECT_EQ(infer_error(conv(2), {meta({1, 1, 3, 3}), meta({1, 1, 3})}),
            "[conv2d] x [1, 1, 3, 3] and weight [1, 1, 3]: ranks 4 and 3 differ");
}

TEST(IrConv, RejectsPerDimParametersOfTheWrongLengthOrRange) {
  Conv op = conv(2);
  const std::vector<TensorMeta> inputs{meta({1, 1, 4, 4}), meta({1, 1, 2, 2})};
  op.geometry.padding = {0};
  EXPECT_EQ(infer_error(op, inputs),
            "[conv2d] padding [0] has 1 values; expected 2 (one per spatial dim)");
  op = conv(2);
  op.geometry.stride = {1, 0};
  EXPECT_EQ(infer_error(op, inputs), "[conv2d] stride [1, 0] must be >= 1");
  op = conv(2);
  op.geometry.padding = {-1, 0};
  EXPECT_EQ(infer_error(op, inputs), "[conv2d] padding [-1, 0] must be >= 0");
  op = conv(2);
  op.geometry.dilation = {0, 1};
  EXPECT_EQ(infer_error(op, inputs), "[conv2d] dilation [0, 1] must be >= 1");
  op = conv(2);
  op.geometry.output_padding = {};
  EXPECT_EQ(infer_error(op, inputs),
            "[conv2d] output_padding [] has 0 values; expected 2 (one per spatial dim)");
  op = conv(2);
  op.geometry.groups = 0;
  EXPECT_EQ(infer_error(op, inputs), "[conv2d] groups 0 must be >= 1");
}

TEST(IrConv, OutputPaddingOnlyWhenTransposedAndBelowStrideOrDilation) {
  Conv op = conv(1);
  op.geometry.output_padding = {1};
  EXPECT_EQ(infer_error(op, {meta({1, 1, 4}), meta({1, 1, 2})}),
            "[conv1d] output_padding [1] must be zeros: the convolution is not transposed");
  op = conv_transpose(1);
  op.geometry.stride = {2};
  op.geometry.output_padding = {2};
  EXPECT_EQ(infer_error(op, {meta({1, 1, 4}), meta({1, 1, 2})}),
            "[conv_transpose1d] output_padding [2] must be smaller than stride [2] or dilation "
            "[1] in each dim");
  op.geometry.output_padding = {-1};
  EXPECT_EQ(infer_error(op, {meta({1, 1, 4}), meta({1, 1, 2})}),
            "[conv_transpose1d] output_padding [-1] must be >= 0");
}

TEST(IrConv, RejectsWeightsThatDoNotMatchTheChannels) {
  EXPECT_EQ(infer_error(conv(1), {meta({1, 3, 4}), meta({2, 2, 2})}),
            "[conv1d] weight [2, 2, 2] must have dim 1 = 3, the channels of x [1, 3, 4] per "
            "group (groups 1)");
  Conv grouped = conv(1);
  grouped.geometry.groups = 2;
  EXPECT_EQ(infer_error(grouped, {meta({1, 3, 4}), meta({2, 1, 2})}),
            "[conv1d] groups 2 does not divide the 3 channels of x [1, 3, 4]");
  EXPECT_EQ(infer_error(grouped, {meta({1, 4, 4}), meta({3, 2, 2})}),
            "[conv1d] groups 2 does not divide the 3 output channels of weight [3, 2, 2]");
  EXPECT_EQ(infer_error(conv_transpose(1), {meta({1, 3, 4}), meta({2, 2, 2})}),
            "[conv_transpose1d] weight [2, 2, 2] must have dim 0 = 3, the channels of x [1, 3, 4]");
  EXPECT_EQ(infer_error(conv(1), {meta({1, 1, 4}), meta({1, 1, 0})}),
            "[conv1d] weight [1, 1, 0] has an empty kernel");
}

TEST(IrConv, RejectsABiasOfTheWrongShape) {
  EXPECT_EQ(infer_error(conv(1), {meta({1, 1, 4}), meta({2, 1, 2}), meta({3})}),
            "[conv1d] bias [3] must be [2], one value per output channel");
  EXPECT_EQ(infer_error(conv(1), {meta({1, 1, 4}), meta({2, 1, 2}), meta({2, 1})}),
            "[conv1d] bias [2, 1] must be [2], one value per output channel");
}

TEST(IrConv, RejectsOutputSizesBelowOne) {
  Conv op = conv(2);
  op.geometry.dilation = {1, 2};
  // W: the dilated kernel covers 2 * (3 - 1) + 1 = 5 > 4 inputs.
  EXPECT_EQ(infer_error(op, {meta({1, 1, 4, 4}), meta({1, 1, 3, 3})}),
            "[conv2d] output size < 1 in spatial dim 1: padded input 4 (input 4, padding 0) < "
            "dilated kernel 5 (kernel 3, dilation 2)");
  Conv transposed = conv_transpose(1);
  transposed.geometry.padding = {2};
  // (1 - 1) * 1 - 2 * 2 + 1 * (2 - 1) + 0 + 1 = -2.
  EXPECT_EQ(infer_error(transposed, {meta({1, 1, 1}), meta({1, 1, 2})}),
            "[conv_transpose1d] output size -2 < 1 in spatial dim 0: input 1, kernel 2, stride "
            "1, padding 2, dilation 1, output_padding 0");
}

TEST(IrConv, RejectsSizesThatOverflowInt64) {
  constexpr int64_t kHuge = std::numeric_limits<int64_t>::max() / 2;
  Conv op = conv(1);
  op.geometry.padding = {kHuge};
  EXPECT_EQ(infer_error(op, {meta({1, 1, 4}), meta({1, 1, 2})}),
            "[conv1d] output size of spatial dim 0 overflows int64");
  Conv transposed = conv_transpose(1);
  transposed.geometry.stride = {kHuge};
  EXPECT_EQ(infer_error(transposed, {meta({1, 1, 4}), meta({1, 1, 2})}),
            "[conv_transpose1d] output size of spatial dim 0 overflows int64");
  Conv dilated = conv(1);
  dilated.geometry.dilation = {kHuge};
  EXPECT_EQ(infer_error(dilated, {meta({1, 1, 4}), meta({1, 1, 4})}),
            "[conv1d] output size of spatial dim 0 overflows int64");
}

TEST(IrConvWeightGrad, GivesTheWeightShape) {
  Conv forward = conv(2);
  forward.geometry.stride = {2, 1};
  const ConvWeightGrad op{forward.geometry, Shape{4, 3, 3, 2}};
  // The forward output of x [2, 3, 5, 7]: floor((5 - 3) / 2) + 1 = 2, 7 - 2 + 1 = 6.
  EXPECT_EQ(infer_one(op, {meta({2, 3, 5, 7}, DType::F64), meta({2, 4, 2, 6}, DType::F64)}),
            meta({4, 3, 3, 2}, DType::F64));
  const ConvWeightGrad transposed{unit_geometry(1, true), Shape{2, 3, 2}};
  EXPECT_EQ(infer_one(transposed, {meta({1, 2, 4}), meta({1, 3, 5})}), meta({2, 3, 2}));
}

TEST(IrConvWeightGrad, RejectsInputsThatDoNotFitTheConvolution) {
  const ConvWeightGrad op{unit_geometry(1), Shape{2, 1, 2}};
  EXPECT_EQ(infer_error(op, {meta({1, 1, 4})}), "[conv1d_weight_backward] expects 2 inputs, got 1");
  EXPECT_EQ(infer_error(op, {meta({1, 1, 4}), meta({1, 2, 3}, DType::F64)}),
            "[conv1d_weight_backward] x dtype f32 and grad_output dtype f64 differ");
  EXPECT_EQ(infer_error(op, {meta({1, 1, 4}), meta({1, 2, 4})}),
            "[conv1d_weight_backward] grad_output shape [1, 2, 4] and convolution output shape "
            "[1, 2, 3] differ");
  EXPECT_EQ(infer_error(op, {meta({1, 2, 4}), meta({1, 2, 3})}),
            "[conv1d_weight_backward] weight [2, 1, 2] must have dim 1 = 2, the channels of x [1, "
            "2, 4] per group (groups 1)");
  EXPECT_EQ(infer_error(ConvWeightGrad{unit_geometry(1), Shape{2, -1, 2}},
                        {meta({1, 1, 4}), meta({1, 2, 3})}),
            "[conv1d_weight_backward] shape [2, -1, 2] has negative dim -1");
}

}  // namespace
}  // namespace ember::ir
