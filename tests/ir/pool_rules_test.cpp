// Rules and names of pooling: output sizes by PyTorch's rule (floor and ceil_mode, padding,
// dilation), outputs of max pooling (values and indices), the geometry checks, geometry from
// untrusted bytes that would overflow, and the gradient ops of average pooling.
#include <cstdint>
#include <limits>
#include <vector>

#include "ir_test_support.h"

namespace ember::ir {
namespace {

using test::infer_error;
using test::infer_one;
using test::meta;

/// A Pool of op with one spatial dim unless the vectors say otherwise.
Pool pool1d(PoolOp op, int64_t kernel, int64_t stride, int64_t padding = 0, int64_t dilation = 1,
            bool ceil_mode = false) {
  return Pool{.op = op,
              .kernel = {kernel},
              .stride = {stride},
              .padding = {padding},
              .dilation = {dilation},
              .ceil_mode = ceil_mode};
}

/// Every output of op on inputs.
std::vector<TensorMeta> infer_all(const Op& op, const std::vector<TensorMeta>& inputs) {
  const OutputMetas outputs = infer(op, inputs);
  return {outputs.begin(), outputs.end()};
}

/// The output length of a 1d max pooling over an input of length in.
int64_t pooled_length(int64_t in, const Pool& pool) {
  return infer_all(pool, {meta({1, 1, in})})[0].shape[2];
}

TEST(IrPool, Names) {
  EXPECT_EQ(name(pool1d(PoolOp::Max, 2, 2)), "max_pool1d");
  EXPECT_EQ(name(Pool{PoolOp::Avg, {2, 2}, {1, 1}, {0, 0}, {1, 1}}), "avg_pool2d");
  EXPECT_EQ(name(AdaptivePool{PoolOp::Max, {1, 2, 3}}), "adaptive_max_pool3d");
  EXPECT_EQ(name(AvgPoolGrad{pool1d(PoolOp::Avg, 2, 2), Shape{1, 1, 4}}), "avg_pool1d_backward");
  EXPECT_EQ(name(AdaptiveAvgPoolGrad{AdaptivePool{PoolOp::Avg, {2, 2}}, Shape{1, 1, 4, 4}}),
            "adaptive_avg_pool2d_backward");
}

TEST(IrPool, MaxGivesValuesAndIndicesAvgValuesOnly) {
  const Pool max{PoolOp::Max, {2, 2}, {2, 2}, {0, 0}, {1, 1}, false, true, {}, DType::I32};
  EXPECT_EQ(
      infer_all(max, {meta({2, 3, 4, 6}, DType::U8)}),
      (std::vector<TensorMeta>{meta({2, 3, 2, 3}, DType::U8), meta({2, 3, 2, 3}, DType::I32)}));
  const Pool avg{PoolOp::Avg, {2, 2}, {2, 2}, {0, 0}, {1, 1}};
  EXPECT_EQ(infer_one(avg, {meta({2, 3, 4, 6}, DType::BF16)}), meta({2, 3, 2, 3}, DType::BF16));
  // An empty batch or channel dim pools to an empty output.
  EXPECT_EQ(infer_one(avg, {meta({0, 3, 4, 6})}), meta({0, 3, 2, 3}));
}

TEST(IrPool, OutputSizesFollowPyTorch) {
  // floor((in + 2p - d (k - 1) - 1) / s) + 1
  EXPECT_EQ(pooled_length(5, pool1d(PoolOp::Max, 2, 2)), 2);
  EXPECT_EQ(pooled_length(5, pool1d(PoolOp::Max, 3, 2, 1)), 3);
  EXPECT_EQ(pooled_length(7, pool1d(PoolOp::Max, 3, 1, 0, 2)), 3);
  EXPECT_EQ(pooled_length(3, pool1d(PoolOp::Max, 3, 1)), 1);
  // ceil_mode keeps the partial window at 4 ...
  EXPECT_EQ(pooled_length(5, pool1d(PoolOp::Max, 2, 2, 0, 1, true)), 3);
  EXPECT_EQ(pooled_length(4, pool1d(PoolOp::Avg, 3, 2, 1, 1, true)), 3);
  // ... but not one that would start in the right padding: (3 - 1) * 4 >= 6 + 1.
  EXPECT_EQ(pooled_length(6, pool1d(PoolOp::Max, 2, 4, 1, 1, true)), 2);
  EXPECT_EQ(pooled_length(6, pool1d(PoolOp::Max, 2, 4, 1)), 2);
}

TEST(IrPool, RejectsDTypesTheOpCannotPool) {
  EXPECT_EQ(infer_error(pool1d(PoolOp::Avg, 2, 2), {meta({1, 1, 4}, DType::I32)}),
            "[avg_pool1d] expects a float dtype, got i32");
  EXPECT_EQ(infer_error(pool1d(PoolOp::Max, 2, 2), {meta({1, 1, 4}, DType::Bool)}),
            "[max_pool1d] expects a numeric dtype, got bool");
  EXPECT_EQ(infer_error(AdaptivePool{PoolOp::Avg, {2}}, {meta({1, 1, 4}, DType::I64)}),
            "[adaptive_avg_pool1d] expects a float dtype, got i64");
}

TEST(IrPool, RejectsBadLayoutsAndArity) {
  EXPECT_EQ(
      infer_error(pool1d(PoolOp::Max, 2, 2), {meta({4, 4})}),
      "[max_pool1d] expects x of shape [N, C, *spatial] with 1 to 3 spatial dims, got [4, 4]");
  EXPECT_EQ(infer_error(pool1d(PoolOp::Max, 2, 2), {meta({1, 1, 1, 1, 1, 4})}),
            "[max_pool1d] expects x of shape [N, C, *spatial] with 1 to 3 spatial dims, got [1, 1, "
            "1, 1, 1, 4]");
  EXPECT_EQ(infer_error(pool1d(PoolOp::Max, 1, 1), {meta({1, 1, 0})}),
            "[max_pool1d] x [1, 1, 0] has an empty spatial dim");
  EXPECT_EQ(infer_error(pool1d(PoolOp::Max, 2, 2), {}), "[max_pool1d] expects 1 input, got 0");
  EXPECT_EQ(infer_error(AdaptivePool{PoolOp::Max, {2}}, {meta({1, 1, 4}), meta({1, 1, 4})}),
            "[adaptive_max_pool1d] expects 1 input, got 2");
}

TEST(IrPool, RejectsBadGeometry) {
  const TensorMeta x = meta({1, 1, 6, 6});
  EXPECT_EQ(infer_error(pool1d(PoolOp::Max, 2, 2), {x}),
            "[max_pool1d] kernel [2] has 1 values; expected 2 (one per spatial dim)");
  EXPECT_EQ(infer_error(Pool{PoolOp::Max, {2, 0}, {1, 1}, {0, 0}, {1, 1}}, {x}),
            "[max_pool2d] kernel [2, 0] must be >= 1");
  EXPECT_EQ(infer_error(Pool{PoolOp::Max, {2, 2}, {0, 1}, {0, 0}, {1, 1}}, {x}),
            "[max_pool2d] stride [0, 1] must be >= 1");
  EXPECT_EQ(infer_error(Pool{PoolOp::Max, {2, 2}, {1, 1}, {0, -1}, {1, 1}}, {x}),
            "[max_pool2d] padding [0, -1] must be >= 0");
  EXPECT_EQ(infer_error(Pool{PoolOp::Max, {2, 2}, {1, 1}, {0, 0}, {1}}, {x}),
            "[max_pool2d] dilation [1] has 1 values; expected 2 (one per spatial dim)");
  EXPECT_EQ(infer_error(Pool{PoolOp::Max, {3, 3}, {1, 1}, {1, 2}, {1, 1}}, {x}),
            "[max_pool2d] padding [1, 2] must be at most half of kernel [3, 3]");
}

TEST(IrPool, AverageOnlyOptions) {
  const TensorMeta x = meta({1, 1, 6});
  EXPECT_EQ(infer_error(pool1d(PoolOp::Avg, 2, 1, 0, 2), {x}),
            "[avg_pool1d] dilation [2] must be 1 for average pooling");
  Pool avg = pool1d(PoolOp::Avg, 2, 1);
  avg.divisor_override = 0;
  EXPECT_EQ(infer_error(avg, {x}), "[avg_pool1d] divisor_override 0 must be >= 1");
  Pool max = pool1d(PoolOp::Max, 2, 1);
  max.divisor_override = 2;
  EXPECT_EQ(infer_error(max, {x}), "[max_pool1d] divisor_override is for average pooling only");
}

TEST(IrPool, RejectsEmptyOutputsAndWindowsOfPaddingOnly) {
  EXPECT_EQ(infer_error(pool1d(PoolOp::Max, 3, 1), {meta({1, 1, 2})}),
            "[max_pool1d] output size < 1 in spatial dim 0: input 2, kernel 3, stride 1, "
            "padding 0, dilation 1");
  // Taps at -1 and 2 step over an input of 2: the one window reads only padding.
  EXPECT_EQ(infer_error(pool1d(PoolOp::Max, 2, 1, 1, 3), {meta({1, 1, 2})}),
            "[max_pool1d] the window of spatial dim 0 holds only padding: input 2, kernel 2, "
            "padding 1, dilation 3");
  // A dilation past the input is fine while a tap lands inside: taps 0 and 3 of an input of 2.
  EXPECT_EQ(pooled_length(2, pool1d(PoolOp::Max, 2, 10, 0, 3, true)), 1);
  EXPECT_EQ(pooled_length(3, pool1d(PoolOp::Max, 1, 1, 0, 5)), 3);
}

TEST(IrPool, GeometryThatWouldOverflowIsRejected) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  const TensorMeta x = meta({1, 1, 4});
  EXPECT_TRUE(
      test::contains(infer_error(pool1d(PoolOp::Max, kMax, 1, 0, kMax), {x}), "output size < 1"));
  EXPECT_TRUE(test::contains(infer_error(pool1d(PoolOp::Max, 2, kMax, 1, kMax, true), {x}),
                             "holds only padding"));
  // A huge stride leaves one window.
  EXPECT_EQ(pooled_length(4, pool1d(PoolOp::Max, 2, kMax, 1, 1, true)), 1);
}

TEST(IrPool, IndexDTypeMustHoldEveryPlanePosition) {
  Pool max = pool1d(PoolOp::Max, 2, 2);
  max.index_dtype = DType::I8;
  EXPECT_EQ(infer_all(max, {meta({1, 1, 128})})[1], meta({1, 1, 64}, DType::I8));
  EXPECT_EQ(infer_error(max, {meta({1, 1, 129})}),
            "[max_pool1d] index dtype i8 cannot hold index 128 of a dim of size 129");
  max.index_dtype = DType::F32;
  EXPECT_EQ(infer_error(max, {meta({1, 1, 4})}),
            "[max_pool1d] index dtype: expects an int dtype, got f32");
  // Average pooling has no indices: its index dtype is not looked at.
  Pool avg = pool1d(PoolOp::Avg, 2, 2);
  avg.index_dtype = DType::F32;
  EXPECT_EQ(infer_one(avg, {meta({1, 1, 4})}), meta({1, 1, 2}));
}

TEST(IrPool, UnknownPoolOp) {
  EXPECT_EQ(infer_error(pool1d(static_cast<PoolOp>(7), 2, 2), {meta({1, 1, 4})}),
            "[invalid_op_pool1d] unknown pool op 7");
}

TEST(IrAdaptivePool, OutputsAndChecks) {
  const AdaptivePool max{PoolOp::Max, {3, 7}, DType::I64};
  EXPECT_EQ(
      infer_all(max, {meta({2, 3, 5, 4}, DType::I16)}),
      (std::vector<TensorMeta>{meta({2, 3, 3, 7}, DType::I16), meta({2, 3, 3, 7}, DType::I64)}));
  EXPECT_EQ(infer_one(AdaptivePool{PoolOp::Avg, {1}}, {meta({2, 3, 5}, DType::F16)}),
            meta({2, 3, 1}, DType::F16));
  EXPECT_EQ(infer_error(AdaptivePool{PoolOp::Avg, {2, 0}}, {meta({1, 1, 4, 4})}),
            "[adaptive_avg_pool2d] output_size [2, 0] must be >= 1");
  EXPECT_EQ(infer_error(AdaptivePool{PoolOp::Avg, {2}}, {meta({1, 1, 4, 4})}),
            "[adaptive_avg_pool1d] output_size [2] has 1 values; expected 2 (one per spatial dim)");
  EXPECT_EQ(infer_error(AdaptivePool{PoolOp::Max, {2}, DType::U8}, {meta({1, 1, 257})}),
            "[adaptive_max_pool1d] index dtype u8 cannot hold index 256 of a dim of size 257");
}

TEST(IrAvgPoolGrad, GivesTheInputShapeForTheMatchingGradient) {
  const Pool avg{PoolOp::Avg, {2, 2}, {2, 2}, {0, 0}, {1, 1}, true};
  EXPECT_EQ(infer_one(AvgPoolGrad{avg, Shape{2, 3, 5, 5}}, {meta({2, 3, 3, 3}, DType::F64)}),
            meta({2, 3, 5, 5}, DType::F64));
  EXPECT_EQ(infer_error(AvgPoolGrad{avg, Shape{2, 3, 5, 5}}, {meta({2, 3, 2, 2})}),
            "[avg_pool2d_backward] grad_output shape [2, 3, 2, 2] and forward output shape [2, "
            "3, 3, 3] differ");
  EXPECT_EQ(infer_error(AvgPoolGrad{avg, Shape{2, 3, 5, 5}}, {meta({2, 3, 3, 3}, DType::I32)}),
            "[avg_pool2d_backward] expects a float dtype, got i32");
  EXPECT_EQ(infer_error(AvgPoolGrad{avg, Shape{5, 5}}, {meta({2, 3, 3, 3})}),
            "[avg_pool2d_backward] expects input_shape of shape [N, C, *spatial] with 1 to 3 "
            "spatial dims, got [5, 5]");
  EXPECT_EQ(infer_error(AvgPoolGrad{avg, Shape{2, -3, 5, 5}}, {meta({2, 3, 3, 3})}),
            "[avg_pool2d_backward] shape [2, -3, 5, 5] has negative dim -3");
  Pool max = avg;
  max.op = PoolOp::Max;
  EXPECT_EQ(infer_error(AvgPoolGrad{max, Shape{2, 3, 4, 4}}, {meta({2, 3, 2, 2})}),
            "[max_pool2d_backward] undoes average pooling only");
}

TEST(IrAdaptiveAvgPoolGrad, GivesTheInputShapeForTheMatchingGradient) {
  const AdaptivePool avg{PoolOp::Avg, {3}};
  EXPECT_EQ(infer_one(AdaptiveAvgPoolGrad{avg, Shape{2, 4, 7}}, {meta({2, 4, 3})}),
            meta({2, 4, 7}));
  EXPECT_EQ(infer_error(AdaptiveAvgPoolGrad{avg, Shape{2, 4, 7}}, {meta({2, 4, 4})}),
            "[adaptive_avg_pool1d_backward] grad_output shape [2, 4, 4] and forward output shape "
            "[2, 4, 3] differ");
  EXPECT_EQ(infer_error(AdaptiveAvgPoolGrad{AdaptivePool{PoolOp::Max, {3}}, Shape{2, 4, 7}},
                        {meta({2, 4, 3})}),
            "[adaptive_max_pool1d_backward] undoes average pooling only");
}

}  // namespace
}  // namespace ember::ir
