// The pooling functions of ember/pooling.h: PyTorch's defaults (stride = kernel_size, no padding,
// count_include_pad), per-dim options given once or per dim, indices in the device's int dtype,
// integer max pooling, gradients through autodiff, and the bad inputs each function rejects
// with an InvalidArgument naming it.
#include <cstdint>
#include <vector>

#include "tensor_test_util.h"

namespace ember::test {
namespace {

using module::AvgPoolOptions;
using module::MaxPoolOptions;

/// [1, 1, 4, 4] holding 0..15.
Tensor<4> counting_plane() {
  std::vector<float> values(16);
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<float>(i);
  return floats<4>(values, {1, 1, 4, 4});
}

TEST(MaxPool, StrideDefaultsToTheKernel) {
  const Tensor<4> y = module::max_pool2d(counting_plane(), {.kernel_size = {2}});
  EXPECT_EQ(y.shape(), (Shape{1, 1, 2, 2}));
  EXPECT_EQ(values<float>(y), (std::vector<float>{5, 7, 13, 15}));
}

TEST(MaxPool, PerDimOptionsAndIndicesInTheDevicesIntDType) {
  // Kernel 1 x 3, stride 2 x 1, padding 0 x 1: rows 0 and 2, windows of columns {c-1, c, c+1}.
  const auto [values_out, indices] = module::max_pool2d_with_indices(
      counting_plane(), {.kernel_size = {1, 3}, .stride = {2, 1}, .padding = {0, 1}});
  EXPECT_EQ(values_out.shape(), (Shape{1, 1, 2, 4}));
  EXPECT_EQ(values<float>(values_out), (std::vector<float>{1, 2, 3, 3, 9, 10, 11, 11}));
  EXPECT_EQ(indices.dtype(), to_dtype(device().settings().int_dtype));
  EXPECT_EQ(values<int64_t>(indices), (std::vector<int64_t>{1, 2, 3, 3, 9, 10, 11, 11}));
}

TEST(MaxPool, IntTensorsAndCeilMode) {
  const Tensor<3, Int> x = ints<3>({4, -2, 7, 1, 9}, {1, 1, 5});
  const Tensor<3, Int> y = module::max_pool1d(x, {.kernel_size = {2}, .ceil_mode = true});
  EXPECT_EQ(y.shape(), (Shape{1, 1, 3}));
  EXPECT_EQ(values<int64_t>(y), (std::vector<int64_t>{4, 7, 9}));
  const auto [pooled, indices] =
      module::max_pool1d_with_indices(x, {.kernel_size = {3}, .stride = {1}, .dilation = {2}});
  // Taps {0, 2, 4}: max 9 at 4.
  EXPECT_EQ(values<int64_t>(pooled), (std::vector<int64_t>{9}));
  EXPECT_EQ(values<int64_t>(indices), (std::vector<int64_t>{4}));
}

TEST(MaxPool, GradientGoesToTheMaximum) {
  const Tensor<3> x = floats<3>({1, 5, 2, 0, 3, 4}, {1, 1, 6}).autodiff().require_grad();
  // Windows {0, 1, 2} and {2, 3, 4}, {4, 5}: maxima at 1, 4 and 5.
  const Tensor<3> y = module::max_pool1d(x, {.kernel_size = {3}, .stride = {2}, .ceil_mode = true});
  const Gradients grads = y.sum().backward();
  EXPECT_EQ(values<float>(*x.grad(grads)), (std::vector<float>{0, 1, 0, 0, 1, 1}));
}

TEST(AvgPool, CountIncludePadByDefault) {
  const Tensor<3> x = floats<3>({1, 2, 3, 4}, {1, 1, 4});
  const AvgPoolOptions options{.kernel_size = {3}, .stride = {1}, .padding = {1}};
  EXPECT_EQ(values<float>(module::avg_pool1d(x, options)), (std::vector<float>{1, 2, 3, 7.0f / 3}));
  AvgPoolOptions exclude = options;
  exclude.count_include_pad = false;
  EXPECT_EQ(values<float>(module::avg_pool1d(x, exclude)), (std::vector<float>{1.5, 2, 3, 3.5}));
  AvgPoolOptions divided = options;
  divided.divisor_override = 2;
  EXPECT_EQ(values<float>(module::avg_pool1d(x, divided)), (std::vector<float>{1.5, 3, 4.5, 3.5}));
}

TEST(AvgPool, TwoDimsAndItsGradient) {
  const Tensor<4> x = counting_plane().autodiff().require_grad();
  const Tensor<4> y = module::avg_pool2d(x, {.kernel_size = {2}});
  EXPECT_EQ(values<float>(y), (std::vector<float>{2.5, 4.5, 10.5, 12.5}));
  const Gradients grads = y.sum().backward();
  EXPECT_EQ(values<float>(*x.grad(grads)), std::vector<float>(16, 0.25f));
}

TEST(AdaptivePool, AverageAndMaximumOverTilingWindows) {
  // Rows [0, 2) and [2, 4); columns [0, 2), [1, 3), [2, 4).
  const Tensor<4> avg = module::adaptive_avg_pool2d(counting_plane(), {2, 3});
  EXPECT_EQ(values<float>(avg), (std::vector<float>{2.5, 3.5, 4.5, 10.5, 11.5, 12.5}));
  const auto [max, indices] = module::adaptive_max_pool2d_with_indices(counting_plane(), {2, 3});
  EXPECT_EQ(values<float>(max), (std::vector<float>{5, 6, 7, 13, 14, 15}));
  EXPECT_EQ(values<int64_t>(indices), (std::vector<int64_t>{5, 6, 7, 13, 14, 15}));
  EXPECT_EQ(values<float>(module::adaptive_max_pool2d(counting_plane(), {1, 1})),
            (std::vector<float>{15}));
  const Tensor<3> row = floats<3>({1, 2, 3, 4, 5}, {1, 1, 5});
  EXPECT_EQ(values<float>(module::adaptive_avg_pool1d(row, 3)), (std::vector<float>{1.5, 3, 4.5}));
}

TEST(AdaptivePool, GradientSpreadsOverOverlappingWindows) {
  // 2 → 3: windows {0}, {0, 1}, {1}; d(sum) / dx = 1 + 1/2 for both inputs.
  const Tensor<3> x = floats<3>({1, 3}, {1, 1, 2}).autodiff().require_grad();
  const Gradients grads = module::adaptive_avg_pool1d(x, 3).sum().backward();
  EXPECT_EQ(values<float>(*x.grad(grads)), (std::vector<float>{1.5, 1.5}));
}

TEST(PoolBadInput, WrongKinds) {
  const TensorHandle ints = handle({1, 2}, Shape{1, 1, 2}, DType::I64);
  const TensorHandle bools = handle({0, 1}, Shape{1, 1, 2}, DType::Bool);
  EXPECT_INVALID(ops::avg_pool(ints, {.kernel_size = {2}}), "[avg_pool1d]", "Float", "i64");
  EXPECT_INVALID(ops::adaptive_avg_pool(ints, {1}), "[adaptive_avg_pool1d]", "Float", "i64");
  EXPECT_INVALID(ops::max_pool(bools, {.kernel_size = {2}}), "[max_pool1d]", "bool");
  EXPECT_INVALID(ops::adaptive_max_pool_with_indices(bools, {1}), "[adaptive_max_pool1d]", "bool");
  EXPECT_INVALID(ops::max_pool(TensorHandle(), {.kernel_size = {2}}), "[max_pool]");
}

TEST(PoolBadInput, LayoutOtherThanBatchChannelsSpatial) {
  EXPECT_INVALID(ops::max_pool(f32({4, 4}), {.kernel_size = {2}}), "[max_pool]", "[N, C, *spatial]",
                 "[4, 4]");
  EXPECT_INVALID(ops::adaptive_avg_pool(f32({1, 1, 1, 1, 1, 1}), {1}), "[adaptive_avg_pool]",
                 "[1, 1, 1, 1, 1, 1]");
}

TEST(PoolBadInput, OptionCountsAndRanges) {
  const TensorHandle x = f32({1, 1, 6, 6});
  EXPECT_INVALID(ops::max_pool(x, {}), "[max_pool2d]", "kernel_size has 0 values",
                 "expected 1 or 2");
  EXPECT_INVALID(ops::max_pool(x, {.kernel_size = {2, 2, 2}}), "[max_pool2d]",
                 "kernel_size has 3 values");
  EXPECT_INVALID(ops::avg_pool(x, {.kernel_size = {2}, .stride = {1, 1, 1}}), "[avg_pool2d]",
                 "stride has 3 values");
  EXPECT_INVALID(ops::max_pool(x, {.kernel_size = {2}, .dilation = {1, 1, 1}}), "[max_pool2d]",
                 "dilation has 3 values");
  EXPECT_INVALID(ops::max_pool(x, {.kernel_size = {3}, .padding = {2}}), "[max_pool2d]",
                 "padding [2, 2] must be at most half of kernel [3, 3]");
  EXPECT_INVALID(ops::max_pool(x, {.kernel_size = {0}}), "[max_pool2d]", "kernel [0, 0]", ">= 1");
  EXPECT_INVALID(ops::avg_pool(x, {.kernel_size = {7}}), "[avg_pool2d]", "output size < 1");
  EXPECT_INVALID(ops::avg_pool(x, {.kernel_size = {2}, .divisor_override = 0}), "[avg_pool2d]",
                 "divisor_override 0");
  EXPECT_INVALID(ops::adaptive_avg_pool(x, {2, 2, 2}), "[adaptive_avg_pool2d]",
                 "output_size has 3 values");
  EXPECT_INVALID(ops::adaptive_max_pool_with_indices(x, {0}), "[adaptive_max_pool2d]",
                 "output_size [0, 0] must be >= 1");
}

}  // namespace
}  // namespace ember::test
