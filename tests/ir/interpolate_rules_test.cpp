// Rules of interpolate and its gradient op: the output takes the requested size, the mode must
// suit the spatial rank, scales must be usable coordinates, and the gradient op checks the
// interpolation it undoes.
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "ir_test_support.h"

namespace ember::ir {
namespace {

using test::infer_error;
using test::infer_one;
using test::meta;

using Mode = InterpolateMode;

/// An Interpolate op; no scales unless given.
Interpolate interp(InterpolateMode mode, std::vector<int64_t> size, bool align_corners = false,
                   std::vector<double> scales = {}) {
  return {mode, std::move(size), align_corners, std::move(scales)};
}

TEST(IrInterpolate, Names) {
  EXPECT_EQ(name(interp(Mode::Linear, {4})), "interpolate");
  EXPECT_EQ(name(InterpolateGrad{interp(Mode::Linear, {4}), Shape{1, 1, 2}}),
            "interpolate_backward");
}

TEST(IrInterpolate, OutputTakesTheSizeAndKeepsTheDType) {
  EXPECT_EQ(infer_one(interp(Mode::Nearest, {5}), {meta({2, 3, 4}, DType::F16)}),
            meta({2, 3, 5}, DType::F16));
  EXPECT_EQ(infer_one(interp(Mode::Linear, {1, 7}, true), {meta({2, 3, 4, 4})}),
            meta({2, 3, 1, 7}));
  EXPECT_EQ(
      infer_one(interp(Mode::Cubic, {8, 8}, false, {2.0, 2.0}), {meta({1, 1, 4, 4}, DType::F64)}),
      meta({1, 1, 8, 8}, DType::F64));
  EXPECT_EQ(infer_one(interp(Mode::Linear, {2, 3, 4}), {meta({0, 3, 4, 4, 4})}),
            meta({0, 3, 2, 3, 4}));
}

TEST(IrInterpolate, RejectsNonFloatBadLayoutsAndArity) {
  EXPECT_EQ(infer_error(interp(Mode::Nearest, {4}), {meta({1, 1, 2}, DType::I32)}),
            "[interpolate] expects a float dtype, got i32");
  EXPECT_EQ(infer_error(interp(Mode::Nearest, {4}), {meta({1, 2})}),
            "[interpolate] expects x of shape [N, C, *spatial] with 1 to 3 spatial dims, got [1, "
            "2]");
  EXPECT_EQ(infer_error(interp(Mode::Nearest, {4}), {meta({1, 1, 0})}),
            "[interpolate] x [1, 1, 0] has an empty spatial dim");
  EXPECT_EQ(infer_error(interp(Mode::Nearest, {4}), {}), "[interpolate] expects 1 input, got 0");
}

TEST(IrInterpolate, SizeHasOnePositiveValuePerSpatialDim) {
  const TensorMeta x = meta({1, 1, 4, 4});
  EXPECT_EQ(infer_error(interp(Mode::Nearest, {4}), {x}),
            "[interpolate] size [4] has 1 values; expected 2 (one per spatial dim)");
  EXPECT_EQ(infer_error(interp(Mode::Nearest, {4, 0}), {x}),
            "[interpolate] size [4, 0] must be >= 1");
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(infer_error(interp(Mode::Nearest, {kMax, 2}), {meta({2, 1, 4, 4})}),
            "[interpolate] shape [2, 1, 9223372036854775807, 2] has more elements than int64 can "
            "count");
}

TEST(IrInterpolate, ModeMustSuitTheSpatialRank) {
  EXPECT_EQ(infer_error(interp(Mode::Cubic, {4}), {meta({1, 1, 2})}),
            "[interpolate] cubic mode needs 2 spatial dims (bicubic), got 1");
  EXPECT_EQ(infer_error(interp(Mode::Nearest, {4}, true), {meta({1, 1, 2})}),
            "[interpolate] align_corners is for the linear and cubic modes only");
  EXPECT_EQ(infer_error(interp(static_cast<Mode>(9), {4}), {meta({1, 1, 2})}),
            "[interpolate] unknown mode 9");
}

TEST(IrInterpolate, ScalesAreNoneOrOneFinitePositivePerSpatialDim) {
  const TensorMeta x = meta({1, 1, 4, 4});
  EXPECT_EQ(infer_error(interp(Mode::Linear, {8, 8}, false, {2.0}), {x}),
            "[interpolate] scales has 1 values; expected none or 2 (one per spatial dim)");
  EXPECT_EQ(infer_error(interp(Mode::Linear, {8, 8}, false, {2.0, 0.0}), {x}),
            "[interpolate] scale 0 of spatial dim 1 must be finite and > 0");
  EXPECT_EQ(infer_error(interp(Mode::Linear, {8, 8}, false, {-2.0, 2.0}), {x}),
            "[interpolate] scale -2 of spatial dim 0 must be finite and > 0");
  EXPECT_TRUE(test::contains(
      infer_error(
          interp(Mode::Linear, {8, 8}, false, {2.0, std::numeric_limits<double>::infinity()}), {x}),
      "of spatial dim 1 must be finite and > 0"));
}

TEST(IrInterpolateGrad, GivesTheInputShapeForTheMatchingGradient) {
  const Interpolate bilinear = interp(Mode::Linear, {6, 8});
  EXPECT_EQ(
      infer_one(InterpolateGrad{bilinear, Shape{2, 3, 3, 4}}, {meta({2, 3, 6, 8}, DType::BF16)}),
      meta({2, 3, 3, 4}, DType::BF16));
  EXPECT_EQ(infer_error(InterpolateGrad{bilinear, Shape{2, 3, 3, 4}}, {meta({2, 3, 8, 6})}),
            "[interpolate_backward] grad_output shape [2, 3, 8, 6] and forward output shape [2, "
            "3, 6, 8] differ");
  EXPECT_EQ(infer_error(InterpolateGrad{bilinear, Shape{2, 3, 4}}, {meta({2, 3, 6, 8})}),
            "[interpolate_backward] size [6, 8] has 2 values; expected 1 (one per spatial dim)");
  EXPECT_EQ(
      infer_error(InterpolateGrad{bilinear, Shape{2, 3, 3, 4}}, {meta({2, 3, 6, 8}, DType::I64)}),
      "[interpolate_backward] expects a float dtype, got i64");
  EXPECT_EQ(infer_error(InterpolateGrad{bilinear, Shape{3, 4}}, {meta({2, 3, 6, 8})}),
            "[interpolate_backward] expects input_shape of shape [N, C, *spatial] with 1 to 3 "
            "spatial dims, got [3, 4]");
}

}  // namespace
}  // namespace ember::ir
