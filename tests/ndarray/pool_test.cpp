// The pooling kernels against hand-computed windows: strides, padding (which never wins a max),
// dilation, ceil_mode's partial windows, both divisors of average pooling and divisor_override,
// adaptive windows that overlap, NaN and ties, integer and half dtypes, and the gradient kernels
// as the adjoints of the average poolings: <pool(x), y> == <x, pool_grad(y)>.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include "ember/float16.h"
#include "ndarray_test_util.h"

namespace ember::ndarray::test {
namespace {

using ir::PoolOp;

ir::Pool pool1d(PoolOp op, int64_t kernel, int64_t stride, int64_t padding = 0,
                int64_t dilation = 1, bool ceil_mode = false) {
  return ir::Pool{.op = op,
                  .kernel = {kernel},
                  .stride = {stride},
                  .padding = {padding},
                  .dilation = {dilation},
                  .ceil_mode = ceil_mode};
}

ir::Pool avg1d(int64_t kernel, int64_t stride, int64_t padding, bool ceil_mode,
               bool count_include_pad, std::optional<int64_t> divisor_override = std::nullopt) {
  ir::Pool pool = pool1d(PoolOp::Avg, kernel, stride, padding, 1, ceil_mode);
  pool.count_include_pad = count_include_pad;
  pool.divisor_override = divisor_override;
  return pool;
}

/// Expects the values and indices a max pooling gave.
void expect_max(const std::vector<TensorData>& outputs, const Shape& shape,
                const std::vector<double>& values, const std::vector<int64_t>& indices) {
  ASSERT_EQ(outputs.size(), 2u);
  expect_data<double>(outputs[0], shape, values);
  expect_data<int64_t>(outputs[1], shape, indices);
}

/// <forward(x), y> == <x, backward(y)> for random x and y: backward is forward's adjoint.
void expect_adjoint(const ir::Op& forward, const ir::Op& backward, const Shape& x_shape) {
  const TensorData x = wavy(x_shape, 0.3);
  const TensorData fx = run_all(forward, {x}).at(0);
  const TensorData y = wavy(fx.shape(), 1.1);
  const TensorData by = run(backward, {y});
  EXPECT_EQ(by.shape(), x_shape) << ir::name(backward);
  EXPECT_NEAR(dot(fx, y), dot(x, by), 1e-12) << ir::name(forward);
}

TEST(NdArrayMaxPool, TwoByTwoWindowsOfAFourByFourPlane) {
  std::vector<double> x(16);
  std::iota(x.begin(), x.end(), 0.0);
  const ir::Pool pool{PoolOp::Max, {2, 2}, {2, 2}, {0, 0}, {1, 1}};
  expect_max(run_all(pool, {TensorData(x, Shape{1, 1, 4, 4})}), {1, 1, 2, 2}, {5, 7, 13, 15},
             {5, 7, 13, 15});
}

TEST(NdArrayMaxPool, PaddingNeverWinsAndCeilModeKeepsThePartialWindow) {
  const TensorData x = row({-1, -3, -2, -5, -4});
  // Windows [-1, 1], [1, 3], [3, 5] over an input of 5: padding (-1, 5) is skipped, so the
  // all-negative values still win.
  expect_max(run_all(pool1d(PoolOp::Max, 3, 2, 1), {x}), {1, 1, 3}, {-1, -2, -4}, {0, 2, 4});
  // ceil_mode: windows [0, 1], [2, 3] and the partial [4].
  expect_max(run_all(pool1d(PoolOp::Max, 2, 2, 0, 1, true), {x}), {1, 1, 3}, {-1, -2, -4},
             {0, 2, 4});
  expect_max(run_all(pool1d(PoolOp::Max, 2, 2), {x}), {1, 1, 2}, {-1, -2}, {0, 2});
}

TEST(NdArrayMaxPool, DilatedTaps) {
  // Taps o, o + 2, o + 4.
  expect_max(run_all(pool1d(PoolOp::Max, 3, 1, 0, 2), {row({0, 6, 1, 5, 2, 4, 3})}), {1, 1, 3},
             {2, 6, 3}, {4, 1, 6});
  // Padding 1, dilation 2, stride 2: taps {-1, 1, 3} and {1, 3, 5} over 5 elements read 1 and 3.
  expect_max(run_all(pool1d(PoolOp::Max, 3, 2, 1, 2), {row({9, 1, 8, 3, 7})}), {1, 1, 2}, {3, 3},
             {3, 3});
}

TEST(NdArrayMaxPool, FirstMaximumWinsTiesAndTheLastNaNWins) {
  expect_max(run_all(pool1d(PoolOp::Max, 3, 3), {row({2, 2, 1, 4, 0, 4})}), {1, 1, 2}, {2, 4},
             {0, 3});
  expect_max(run_all(pool1d(PoolOp::Max, 4, 4), {row({1, kNaN, 3, kNaN})}), {1, 1, 1}, {kNaN}, {3});
  // A window of -inf keeps its first position.
  expect_max(run_all(pool1d(PoolOp::Max, 2, 2), {row({-kInf, -kInf})}), {1, 1, 1}, {-kInf}, {0});
}

TEST(NdArrayMaxPool, IntegerAndHalfDTypes) {
  const ir::Pool pool = pool1d(PoolOp::Max, 2, 2);
  const auto ints = run_all(pool, {TensorData(std::vector<int32_t>{-7, -9, 3, 2}, Shape{1, 1, 4})});
  expect_data<int32_t>(ints[0], {1, 1, 2}, {-7, 3});
  const auto bytes =
      run_all(pool, {TensorData(std::vector<uint8_t>{7, 250, 3, 2}, Shape{1, 1, 4})});
  expect_data<uint8_t>(bytes[0], {1, 1, 2}, {250, 3});
  expect_data<int64_t>(bytes[1], {1, 1, 2}, {1, 2});
  const auto large =
      run_all(pool, {TensorData(std::vector<int64_t>{(1LL << 60) + 1, 1LL << 60}, Shape{1, 1, 2})});
  expect_data<int64_t>(large[0], {1, 1, 1}, {(1LL << 60) + 1});
  const auto halves =
      run_all(pool, {values_of({0.5, -2.0, 1.5, 1.25}, Shape{1, 1, 4}, DType::F16)});
  expect_data<Half>(halves[0], {1, 1, 2}, {Half(0.5f), Half(1.5f)});
}

TEST(NdArrayMaxPool, IndicesTakeTheOpsIndexDTypeAndCountWithinThePlane) {
  ir::Pool pool{PoolOp::Max, {1, 2}, {1, 2}, {0, 0}, {1, 1}};
  pool.index_dtype = DType::I32;
  // Two planes of [2, 2]; each index counts within its own plane.
  const auto outputs = run_all(pool, {values_of({1, 0, 0, 1, 0, 1, 1, 0}, Shape{2, 1, 2, 2})});
  expect_data<int32_t>(outputs[1], {2, 1, 2, 1}, {0, 3, 1, 2});
}

TEST(NdArrayMaxPool, ThreeSpatialDims) {
  std::vector<double> x(8);
  std::iota(x.begin(), x.end(), 0.0);
  x[2] = 20;
  const ir::Pool pool{PoolOp::Max, {2, 2, 2}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}};
  expect_max(run_all(pool, {TensorData(x, Shape{1, 1, 2, 2, 2})}), {1, 1, 1, 1, 1}, {20}, {2});
}

TEST(NdArrayAvgPool, CountIncludePadBothWays) {
  // Windows [-1, 1], [0, 2], [1, 3], [2, 4] over [1, 2, 3, 4]: sums 3, 6, 9, 7.
  const TensorData x = row({1, 2, 3, 4});
  expect_data<double>(run(avg1d(3, 1, 1, false, true), {x}), {1, 1, 4}, {1, 2, 3, 7.0 / 3});
  expect_data<double>(run(avg1d(3, 1, 1, false, false), {x}), {1, 1, 4}, {1.5, 2, 3, 3.5});
}

TEST(NdArrayAvgPool, CeilModeWindowPastThePaddingIsNotCounted) {
  // k 3, s 2, p 1, ceil: windows [-1, 1], [1, 3], [3, 5]; the last is clipped to the padded
  // input [-1, 5) for count_include_pad: 2 elements, 1 of them inside.
  const TensorData x = row({1, 2, 3, 4});
  expect_data<double>(run(avg1d(3, 2, 1, true, true), {x}), {1, 1, 3}, {1, 3, 2});
  expect_data<double>(run(avg1d(3, 2, 1, true, false), {x}), {1, 1, 3}, {1.5, 3, 4});
  expect_data<double>(run(avg1d(3, 2, 1, true, true, 2), {x}), {1, 1, 3}, {1.5, 4.5, 2});
}

TEST(NdArrayAvgPool, TwoDimsAndHalfPrecisionRoundedOnce) {
  const ir::Pool pool{PoolOp::Avg, {2, 2}, {2, 2}, {0, 0}, {1, 1}};
  expect_data<double>(run(pool, {values_of({1, 2, 3, 4, 5, 6, 7, 8}, Shape{1, 1, 2, 4})}),
                      {1, 1, 1, 2}, {3.5, 5.5});
  // (2048 + 1 + 1 + 1) / 4 = 512.75, a tie rounded to the even 513. Summed in f16 one step at
  // a time, each 2048 + 1 would round back to 2048 and give 512.
  const TensorData halves = values_of({2048, 1, 1, 1}, Shape{1, 1, 2, 2}, DType::F16);
  expect_data<Half>(run(pool, {halves}), {1, 1, 1, 1}, {Half(513.0f)});
  const TensorData bf16 = values_of({1, 2, 3, 4}, Shape{1, 1, 2, 2}, DType::BF16);
  expect_data<BFloat16>(run(pool, {bf16}), {1, 1, 1, 1}, {BFloat16(2.5f)});
}

TEST(NdArrayAvgPool, EmptyBatch) {
  expect_data<double>(run(avg1d(2, 2, 0, false, true), {TensorData::zeros({0, 3, 4}, DType::F64)}),
                      {0, 3, 2}, {});
  const auto max = run_all(pool1d(PoolOp::Max, 2, 2), {TensorData::zeros({2, 0, 4}, DType::F32)});
  expect_data<float>(max[0], {2, 0, 2}, {});
}

TEST(NdArrayAdaptivePool, WindowsTileTheInput) {
  // 5 → 3: [0, 2), [1, 4), [3, 5).
  expect_data<double>(run(ir::AdaptivePool{PoolOp::Avg, {3}}, {row({1, 2, 3, 4, 5})}), {1, 1, 3},
                      {1.5, 3, 4.5});
  // 2 → 3 overlaps: [0, 1), [0, 2), [1, 2).
  expect_data<double>(run(ir::AdaptivePool{PoolOp::Avg, {3}}, {row({1, 3})}), {1, 1, 3}, {1, 2, 3});
  expect_max(run_all(ir::AdaptivePool{PoolOp::Max, {3}}, {row({1, 5, 2, 3, 4})}), {1, 1, 3},
             {5, 5, 4}, {1, 1, 4});
}

TEST(NdArrayAdaptivePool, TwoDims) {
  // [2, 3] → [1, 2]: columns [0, 2) and [1, 3) over both rows.
  const TensorData x = values_of({1, 2, 3, 4, 5, 6}, Shape{1, 1, 2, 3});
  expect_data<double>(run(ir::AdaptivePool{PoolOp::Avg, {1, 2}}, {x}), {1, 1, 1, 2}, {3, 4});
  expect_max(run_all(ir::AdaptivePool{PoolOp::Max, {1, 2}}, {x}), {1, 1, 1, 2}, {5, 6}, {4, 5});
}

TEST(NdArrayAdaptivePool, OutputOfTheInputSizeIsTheIdentity) {
  const TensorData x = wavy({2, 3, 4, 5}, 0.7);
  const TensorData avg = run(ir::AdaptivePool{PoolOp::Avg, {4, 5}}, {x});
  EXPECT_EQ(avg.to_vector<double>(), x.to_vector<double>());
  const auto max = run_all(ir::AdaptivePool{PoolOp::Max, {4, 5}}, {x});
  EXPECT_EQ(max[0].to_vector<double>(), x.to_vector<double>());
  std::vector<int64_t> positions(120);
  for (std::size_t i = 0; i < positions.size(); ++i)
    positions[i] = static_cast<int64_t>(i % 20);
  expect_data<int64_t>(max[1], {2, 3, 4, 5}, positions);
}

TEST(NdArrayAvgPoolGrad, IsTheAdjointOfAveragePooling) {
  const std::vector<ir::Pool> pools = {
      avg1d(3, 1, 1, false, true),
      avg1d(3, 2, 1, true, true),
      avg1d(3, 2, 1, true, false),
      avg1d(2, 3, 1, true, false, 5),
      {PoolOp::Avg, {3, 2}, {2, 1}, {1, 1}, {1, 1}, true, false},
      {PoolOp::Avg, {2, 3, 2}, {1, 2, 2}, {1, 1, 0}, {1, 1, 1}},
  };
  const std::vector<Shape> shapes = {{2, 3, 7}, {2, 3, 7},    {1, 2, 8},
                                     {1, 2, 8}, {2, 2, 5, 4}, {1, 2, 3, 5, 4}};
  for (std::size_t i = 0; i < pools.size(); ++i)
    expect_adjoint(pools[i], ir::AvgPoolGrad{pools[i], shapes[i]}, shapes[i]);
}

TEST(NdArrayAvgPoolGrad, SpreadsEachGradientOverItsWindow) {
  // avg1d(3, 2, 1, ceil, exclude pad) over 4: windows {0, 1}, {1, 2, 3}, {3}.
  const TensorData g = row({2, 3, 5});
  expect_data<double>(run(ir::AvgPoolGrad{avg1d(3, 2, 1, true, false), Shape{1, 1, 4}}, {g}),
                      {1, 1, 4}, {1, 1 + 1, 1, 1 + 5});
}

TEST(NdArrayAdaptiveAvgPoolGrad, IsTheAdjointOfAdaptiveAveragePooling) {
  for (const auto& [out, shape] :
       std::vector<std::pair<std::vector<int64_t>, Shape>>{{{3}, {2, 2, 5}},
                                                           {{5}, {1, 2, 3}},
                                                           {{2, 3}, {1, 3, 5, 4}},
                                                           {{2, 1, 3}, {1, 1, 3, 2, 7}}}) {
    const ir::AdaptivePool pool{PoolOp::Avg, out};
    expect_adjoint(pool, ir::AdaptiveAvgPoolGrad{pool, shape}, shape);
  }
}

}  // namespace
}  // namespace ember::ndarray::test
