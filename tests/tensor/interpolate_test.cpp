// ember::module::interpolate: nearest by default, size or scale_factor (given once or per dim,
// the scale also mapping coordinates), each mode on its rank, gradients through autodiff, and
// the bad inputs it rejects with an InvalidArgument naming it.
#include <cmath>
#include <limits>
#include <vector>

#include "tensor_test_util.h"

namespace ember::test {
namespace {

using module::InterpolateMode;
using module::InterpolateOptions;

TEST(Interpolate, NearestBySizeByDefault) {
  const Tensor<4> x = floats<4>({1, 2, 3, 4}, {1, 1, 2, 2});
  const Tensor<4> y = module::interpolate(x, {.size = ops::Dims{3}});
  EXPECT_EQ(y.shape(), (Shape{1, 1, 3, 3}));
  // Sources floor(i * 2 / 3): 0, 0, 1 along each dim.
  EXPECT_EQ(values<float>(y), (std::vector<float>{1, 1, 2, 1, 1, 2, 3, 3, 4}));
}

TEST(Interpolate, ScaleFactorSetsTheSizeAndMapsCoordinates) {
  const Tensor<3> x = floats<3>({0, 1, 2, 3}, {1, 1, 4});
  // floor(4 * 1.7) = 6 outputs reading floor(i / 1.7): 0, 0, 1, 1, 2, 2 ...
  const Tensor<3> scaled = module::interpolate(x, {.scale_factor = std::vector<double>{1.7}});
  EXPECT_EQ(values<float>(scaled), (std::vector<float>{0, 0, 1, 1, 2, 2}));
  // ... while size 6 reads floor(i * 4 / 6): 0, 0, 1, 2, 2, 3.
  const Tensor<3> sized = module::interpolate(x, {.size = ops::Dims{6}});
  EXPECT_EQ(values<float>(sized), (std::vector<float>{0, 0, 1, 2, 2, 3}));
}

TEST(Interpolate, PerDimScaleFactors) {
  const Tensor<4> x = floats<4>({1, 2, 3, 4}, {1, 1, 2, 2});
  const Tensor<4> y = module::interpolate(
      x, {.scale_factor = std::vector<double>{1.0, 2.0}, .mode = InterpolateMode::Bilinear});
  EXPECT_EQ(y.shape(), (Shape{1, 1, 2, 4}));
  EXPECT_EQ(values<float>(y), (std::vector<float>{1, 1.25, 1.75, 2, 3, 3.25, 3.75, 4}));
}

TEST(Interpolate, EachModeOnItsRank) {
  const Tensor<3> line = floats<3>({0, 10}, {1, 1, 2});
  const Tensor<3> linear = module::interpolate(
      line, {.size = ops::Dims{3}, .mode = InterpolateMode::Linear, .align_corners = true});
  EXPECT_EQ(values<float>(linear), (std::vector<float>{0, 5, 10}));
  const Tensor<5> cube = floats<5>({0, 1, 2, 3, 4, 5, 6, 7}, {1, 1, 2, 2, 2});
  const Tensor<5> trilinear = module::interpolate(
      cube, {.size = ops::Dims{3}, .mode = InterpolateMode::Trilinear, .align_corners = true});
  EXPECT_EQ(trilinear.shape(), (Shape{1, 1, 3, 3, 3}));
  // The centre averages the eight corners.
  EXPECT_EQ(values<float>(trilinear)[13], 3.5f);
  const Tensor<4> square = floats<4>({1, 2, 3, 4}, {1, 1, 2, 2});
  const Tensor<4> bicubic = module::interpolate(
      square, {.size = ops::Dims{3}, .mode = InterpolateMode::Bicubic, .align_corners = true});
  // Clamped border taps make the midpoint of two values their mean: the centre is 2.5.
  EXPECT_EQ(values<float>(bicubic)[4], 2.5f);
}

TEST(Interpolate, GradientSumsTheWeightsOfEachInput) {
  const Tensor<3> x = floats<3>({1, 3}, {1, 1, 2}).autodiff().require_grad();
  // 2 → 4 without align_corners: weights (1, 0), (0.75, 0.25), (0.25, 0.75), (0, 1).
  const Tensor<3> y =
      module::interpolate(x, {.size = ops::Dims{4}, .mode = InterpolateMode::Linear});
  const Gradients grads = y.sum().backward();
  EXPECT_EQ(values<float>(*x.grad(grads)), (std::vector<float>{2, 2}));
}

InterpolateOptions sized(ops::Dims size, InterpolateMode mode = InterpolateMode::Nearest) {
  return {.size = std::move(size), .mode = mode};
}

TEST(InterpolateBadInput, KindsAndLayouts) {
  EXPECT_INVALID(ops::interpolate(handle({1, 2}, Shape{1, 1, 2}, DType::I64), sized({4})),
                 "[interpolate]", "Float", "i64");
  EXPECT_INVALID(ops::interpolate(f32({2, 2}), sized({4})), "[interpolate]", "[N, C, *spatial]",
                 "[2, 2]");
  EXPECT_INVALID(ops::interpolate(TensorHandle(), sized({4})), "[interpolate]");
}

TEST(InterpolateBadInput, ExactlyOneOfSizeAndScaleFactor) {
  const TensorHandle x = f32({1, 1, 4});
  EXPECT_INVALID(ops::interpolate(x, {}), "[interpolate]", "exactly one of size and scale_factor");
  EXPECT_INVALID(
      ops::interpolate(x, {.size = ops::Dims{4}, .scale_factor = std::vector<double>{2}}),
      "[interpolate]", "exactly one of size and scale_factor");
}

TEST(InterpolateBadInput, ModeAgainstRank) {
  EXPECT_INVALID(ops::interpolate(f32({1, 1, 4, 4}), sized({8}, InterpolateMode::Linear)),
                 "[interpolate]", "mode linear needs 1 spatial dim", "[1, 1, 4, 4]");
  EXPECT_INVALID(ops::interpolate(f32({1, 1, 4}), sized({8}, InterpolateMode::Bilinear)),
                 "[interpolate]", "mode bilinear needs 2 spatial dims");
  EXPECT_INVALID(ops::interpolate(f32({1, 1, 4, 4, 4}), sized({8}, InterpolateMode::Bicubic)),
                 "[interpolate]", "mode bicubic needs 2 spatial dims");
  EXPECT_INVALID(ops::interpolate(f32({1, 1, 4, 4}), sized({8}, InterpolateMode::Trilinear)),
                 "[interpolate]", "mode trilinear needs 3 spatial dims");
  EXPECT_INVALID(ops::interpolate(f32({1, 1, 4}), {.size = ops::Dims{8}, .align_corners = true}),
                 "[interpolate]", "align_corners", "not nearest");
}

TEST(InterpolateBadInput, SizesAndScaleFactors) {
  const TensorHandle x = f32({1, 1, 4, 4});
  EXPECT_INVALID(ops::interpolate(x, sized({2, 2, 2})), "[interpolate]", "size has 3 values");
  EXPECT_INVALID(ops::interpolate(x, sized({0})), "[interpolate]", "size [0, 0] must be >= 1");
  const auto scaled = [&](std::vector<double> scale) {
    return ops::interpolate(x, {.scale_factor = std::move(scale)});
  };
  EXPECT_INVALID(scaled({}), "[interpolate]", "scale_factor has 0 values");
  EXPECT_INVALID(scaled({2, 2, 2}), "[interpolate]", "scale_factor has 3 values");
  EXPECT_INVALID(scaled({0}), "[interpolate]", "scale_factor 0 must be finite and > 0");
  EXPECT_INVALID(scaled({std::numeric_limits<double>::quiet_NaN()}), "[interpolate]",
                 "must be finite and > 0");
  EXPECT_INVALID(scaled({0.2}), "[interpolate]", "scale_factor 0.2 gives output size 0",
                 "spatial dim 0 of size 4");
  EXPECT_INVALID(scaled({1e300}), "[interpolate]", "must be >= 1 and fit int64");
}

}  // namespace
}  // namespace ember::test
