// The resampling kernels against hand-computed values and PyTorch's documented examples
// (torch.nn.Upsample): nearest's floor(i * in / out), linear with and without align_corners,
// bicubic's A = -0.75 weights and clamped border taps, a scale factor mapping coordinates instead
// of the sizes, identities at scale 1, and InterpolateGrad as the adjoint of Interpolate.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

#include "ember/float16.h"
#include "ndarray_test_util.h"

namespace ember::ndarray::test {
namespace {

using Mode = ir::InterpolateMode;

/// An Interpolate op; no scales unless given.
ir::Interpolate interp(ir::InterpolateMode mode, std::vector<int64_t> size,
                       bool align_corners = false, std::vector<double> scales = {}) {
  return {mode, std::move(size), align_corners, std::move(scales)};
}

/// Expects shape and values within 1e-12 (results that are not dyadic fractions).
void expect_near(const TensorData& data, const Shape& shape, const std::vector<double>& expected) {
  EXPECT_EQ(data.shape(), shape);
  const std::vector<double> actual = data.to_vector<double>();
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(actual[i], expected[i], 1e-12) << "element " << i;
}

TEST(NdArrayInterpolate, NearestReadsFloorOfIndexTimesRatio) {
  // ratio 3 / 5: 0, 0.6, 1.2, 1.8, 2.4.
  expect_data<double>(run(interp(Mode::Nearest, {5}), {row({1, 2, 3})}), {1, 1, 5},
                      {1, 1, 2, 2, 3});
  expect_data<double>(run(interp(Mode::Nearest, {2}), {row({1, 2, 3, 4})}), {1, 1, 2}, {1, 3});
}

TEST(NdArrayInterpolate, AScaleFactorMapsCoordinatesInsteadOfTheSizes) {
  const TensorData x = row({0, 1, 2, 3});
  // ratio 1 / 1.7: 0, 0.59, 1.18, 1.76, 2.35, 2.94 ...
  expect_data<double>(run(interp(Mode::Nearest, {6}, false, {1.7}), {x}), {1, 1, 6},
                      {0, 0, 1, 1, 2, 2});
  // ... where the sizes give 4 / 6: 0, 0.67, 1.33, 2, 2.67, 3.33.
  expect_data<double>(run(interp(Mode::Nearest, {6}), {x}), {1, 1, 6}, {0, 0, 1, 2, 2, 3});
  // Linear over x[i] = i gives the coordinate itself: (1 + 0.5) / 1.7 - 0.5 for output 1.
  const TensorData linear = run(interp(Mode::Linear, {6}, false, {1.7}), {x});
  EXPECT_NEAR(linear.to_vector<double>()[1], 1.5 / 1.7 - 0.5, 1e-12);
}

TEST(NdArrayInterpolate, LinearWithAndWithoutAlignCorners) {
  // Coordinates (i + 0.5) / 2 - 0.5 = -0.25 (clamped to 0), 0.25, 0.75, 1.25 (past the end).
  expect_data<double>(run(interp(Mode::Linear, {4}), {row({0, 10})}), {1, 1, 4}, {0, 2.5, 7.5, 10});
  // Coordinates i / 3.
  expect_near(run(interp(Mode::Linear, {4}, true), {row({0, 10})}), {1, 1, 4},
              {0, 10.0 / 3, 20.0 / 3, 10});
  // One output with align_corners reads the first input.
  expect_data<double>(run(interp(Mode::Linear, {1}, true), {row({4, 10})}), {1, 1, 1}, {4});
}

/// [[1, 2], [3, 4]], the input of torch.nn.Upsample's documented examples.
TensorData upsample_doc_input() {
  return values_of({1, 2, 3, 4}, Shape{1, 1, 2, 2});
}

TEST(NdArrayInterpolate, UpsampleDocumentationExamples) {
  const TensorData x = upsample_doc_input();
  const ir::Interpolate nearest = interp(Mode::Nearest, {4, 4}, false, {2.0, 2.0});
  expect_data<double>(run(nearest, {x}), {1, 1, 4, 4},
                      {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
  const ir::Interpolate bilinear = interp(Mode::Linear, {4, 4}, false, {2.0, 2.0});
  expect_data<double>(
      run(bilinear, {x}), {1, 1, 4, 4},
      {1.0, 1.25, 1.75, 2.0, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25, 3.5, 3.0, 3.25, 3.75, 4.0});
  const ir::Interpolate aligned = interp(Mode::Linear, {4, 4}, true, {2.0, 2.0});
  expect_near(run(aligned, {x}), {1, 1, 4, 4},
              {1.0, 4.0 / 3, 5.0 / 3, 2.0, 5.0 / 3, 2.0, 7.0 / 3, 8.0 / 3, 7.0 / 3, 8.0 / 3, 3.0,
               10.0 / 3, 3.0, 10.0 / 3, 11.0 / 3, 4.0});
}

TEST(NdArrayInterpolate, UpsampleDocumentationExamplesOnThreeByThree) {
  const TensorData x = values_of({1, 2, 0, 3, 4, 0, 0, 0, 0}, Shape{1, 1, 3, 3});
  expect_data<double>(run(interp(Mode::Linear, {6, 6}, false, {2.0, 2.0}), {x}), {1, 1, 6, 6},
                      {1.0000, 1.2500, 1.7500, 1.5000, 0.5000, 0.0000,  //
                       1.5000, 1.7500, 2.2500, 1.8750, 0.6250, 0.0000,  //
                       2.5000, 2.7500, 3.2500, 2.6250, 0.8750, 0.0000,  //
                       2.2500, 2.4375, 2.8125, 2.2500, 0.7500, 0.0000,  //
                       0.7500, 0.8125, 0.9375, 0.7500, 0.2500, 0.0000,  //
                       0.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000});
  expect_near(run(interp(Mode::Linear, {6, 6}, true, {2.0, 2.0}), {x}), {1, 1, 6, 6},
              {1.0000, 1.4000, 1.8000, 1.6000, 0.8000, 0.0000,  //
               1.8000, 2.2000, 2.6000, 2.2400, 1.1200, 0.0000,  //
               2.6000, 3.0000, 3.4000, 2.8800, 1.4400, 0.0000,  //
               2.4000, 2.7200, 3.0400, 2.5600, 1.2800, 0.0000,  //
               1.2000, 1.3600, 1.5200, 1.2800, 0.6400, 0.0000,  //
               0.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000});
}

TEST(NdArrayInterpolate, BicubicWeightsAndClampedBorderTaps) {
  // One row (its single coordinate 0 reads itself) of squares 0, 1, 4, 9. At t = 0.5 the
  // weights are -0.09375, 0.59375, 0.59375, -0.09375; taps past the ends repeat the border.
  const TensorData x = values_of({0, 1, 4, 9}, Shape{1, 1, 1, 4});
  expect_data<double>(run(interp(Mode::Cubic, {1, 7}, true), {x}), {1, 1, 1, 7},
                      {0, 0.21875, 1, 2.125, 4, 6.78125, 9});
  // Without align_corners output 0 sits at -0.25: taps -2..1 at t = 0.75, weights -0.03515625,
  // 0.26171875, 0.87890625, -0.10546875, the first three on input 0. Output 7 sits at 3.25: taps
  // 2..5 at t = 0.25, the last three on input 3.
  const std::vector<double> out = run(interp(Mode::Cubic, {1, 8}), {x}).to_vector<double>();
  EXPECT_DOUBLE_EQ(out[0], -0.10546875);
  EXPECT_DOUBLE_EQ(out[7], 4 * -0.10546875 + 9 * (0.87890625 + 0.26171875 - 0.03515625));
}

/// Bicubic by direct summation over the 4 x 4 neighbourhood of each output (not separable), in
/// f64 from the coordinate rule: with scale factors s, coordinate (i + 0.5) / s - 0.5.
std::vector<double> naive_bicubic(const std::vector<double>& x, int64_t h, int64_t w, int64_t out_h,
                                  int64_t out_w, double scale) {
  const auto kernel = [](double d) {
    constexpr double a = -0.75;
    d = std::abs(d);
    if (d <= 1) return ((a + 2) * d - (a + 3)) * d * d + 1;
    if (d < 2) return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a;
    return 0.0;
  };
  std::vector<double> out;
  for (int64_t oy = 0; oy < out_h; ++oy) {
    for (int64_t ox = 0; ox < out_w; ++ox) {
      const double cy = (static_cast<double>(oy) + 0.5) / scale - 0.5;
      const double cx = (static_cast<double>(ox) + 0.5) / scale - 0.5;
      const auto fy = static_cast<int64_t>(std::floor(cy));
      const auto fx = static_cast<int64_t>(std::floor(cx));
      double sum = 0;
      for (int64_t y = fy - 1; y <= fy + 2; ++y) {
        for (int64_t xx = fx - 1; xx <= fx + 2; ++xx) {
          const int64_t sy = std::clamp<int64_t>(y, 0, h - 1);
          const int64_t sx = std::clamp<int64_t>(xx, 0, w - 1);
          sum += kernel(cy - static_cast<double>(y)) * kernel(cx - static_cast<double>(xx)) *
                 x[static_cast<std::size_t>(sy * w + sx)];
        }
      }
      out.push_back(sum);
    }
  }
  return out;
}

TEST(NdArrayInterpolate, BicubicMatchesDirectSummation) {
  const TensorData x = wavy({1, 1, 3, 4}, 0.2);
  const TensorData up = run(interp(Mode::Cubic, {7, 10}, false, {2.5, 2.5}), {x});
  expect_near(up, {1, 1, 7, 10}, naive_bicubic(x.to_vector<double>(), 3, 4, 7, 10, 2.5));
}

TEST(NdArrayInterpolate, EveryModeAtScaleOneIsTheIdentity) {
  const std::vector<std::pair<ir::Interpolate, Shape>> cases = {
      {interp(Mode::Nearest, {5}), {2, 3, 5}},
      {interp(Mode::Linear, {5}), {2, 3, 5}},
      {interp(Mode::Linear, {4, 5}, false, {1.0, 1.0}), {2, 1, 4, 5}},
      {interp(Mode::Linear, {4, 5}, true), {2, 1, 4, 5}},
      {interp(Mode::Linear, {2, 3, 4}), {1, 2, 2, 3, 4}},
      {interp(Mode::Cubic, {4, 5}), {2, 1, 4, 5}},
      {interp(Mode::Cubic, {4, 5}, true), {2, 1, 4, 5}},
  };
  for (const auto& [op, shape] : cases) {
    const TensorData x = wavy(shape, 0.4);
    EXPECT_EQ(run(op, {x}).to_vector<double>(), x.to_vector<double>()) << ir::name(op);
  }
}

TEST(NdArrayInterpolate, HalfPrecisionRoundsTheF64ResultOnce) {
  const std::vector<double> values = {0.1, 0.7, -1.3, 2.9};
  // 4 → 8: coordinates are exact in f32 and f64 alike, so only the rounding of values differs.
  const ir::Interpolate op = interp(Mode::Linear, {8});
  const TensorData halves = run(op, {values_of(values, {1, 1, 4}, DType::F16)});
  const std::vector<double> exact =
      run(op, {values_of(values_of(values, {1, 1, 4}, DType::F16).to_vector<double>(), {1, 1, 4})})
          .to_vector<double>();
  ASSERT_EQ(halves.dtype(), DType::F16);
  const std::vector<double> actual = halves.to_vector<double>();
  for (std::size_t i = 0; i < exact.size(); ++i)
    EXPECT_EQ(actual[i],
              static_cast<double>(static_cast<float>(Half(static_cast<float>(exact[i])))))
        << i;
}

TEST(NdArrayInterpolate, EmptyBatch) {
  expect_data<double>(run(interp(Mode::Linear, {9}), {TensorData::zeros({0, 2, 3}, DType::F64)}),
                      {0, 2, 9}, {});
  expect_data<float>(run(ir::InterpolateGrad{interp(Mode::Nearest, {9}), Shape{2, 0, 3}},
                         {TensorData::zeros({2, 0, 9}, DType::F32)}),
                     {2, 0, 3}, {});
}

TEST(NdArrayInterpolateGrad, SendsEachGradientBackWithItsWeights) {
  // 2 → 4, linear: outputs read x0, 0.75 x0 + 0.25 x1, 0.25 x0 + 0.75 x1, x1.
  const ir::InterpolateGrad grad{interp(Mode::Linear, {4}), Shape{1, 1, 2}};
  expect_data<double>(run(grad, {row({1, 1, 1, 1})}), {1, 1, 2}, {2, 2});
  expect_data<double>(run(grad, {row({0, 4, 0, 8})}), {1, 1, 2}, {3, 1 + 8});
}

TEST(NdArrayInterpolateGrad, IsTheAdjointOfInterpolate) {
  const std::vector<std::pair<ir::Interpolate, Shape>> cases = {
      {interp(Mode::Nearest, {7}), {2, 3, 3}},
      {interp(Mode::Nearest, {2, 5}, false, {0.6, 1.3}), {1, 2, 4, 4}},
      {interp(Mode::Nearest, {2, 3, 5}), {1, 1, 3, 3, 3}},
      {interp(Mode::Linear, {7}), {2, 3, 3}},
      {interp(Mode::Linear, {7}, true), {2, 3, 3}},
      {interp(Mode::Linear, {2}), {1, 2, 5}},
      {interp(Mode::Linear, {5, 6}, false, {2.5, 1.5}), {1, 2, 2, 4}},
      {interp(Mode::Linear, {3, 5, 2}, true), {1, 2, 2, 3, 4}},
      {interp(Mode::Cubic, {6, 7}), {2, 1, 3, 4}},
      {interp(Mode::Cubic, {6, 2}, true), {1, 2, 3, 5}},
  };
  for (const auto& [op, shape] : cases) {
    const TensorData x = wavy(shape, 0.3);
    const TensorData fx = run(op, {x});
    const TensorData y = wavy(fx.shape(), 1.1);
    const TensorData back = run(ir::InterpolateGrad{op, shape}, {y});
    EXPECT_EQ(back.shape(), shape);
    EXPECT_NEAR(dot(fx, y), dot(x, back), 1e-12) << ir::name(op);
  }
}

}  // namespace
}  // namespace ember::ndarray::test
