// flex's f32 tanh (a rational approximation, simd_elementwise.cpp) against the exact value:
// its error over a dense sweep of the floats, and the special values it must give exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "backends/flex/simd.h"
#include "flex_test_util.h"

namespace ember::flex::test {
namespace {

/// flex's tanh of each value.
std::vector<float> flex_tanh(const std::vector<float>& x) {
  std::vector<float> out(x.size());
  simd::unary(ir::UnaryOp::Tanh, x.data(), out.data(), static_cast<int64_t>(x.size()));
  return out;
}

// 5.6 ulp at worst over every float with FMA; the targets without FMA round twice as often.
TEST(FlexTanh, StaysWithinEightUlpOverADenseSweepOfTheFloats) {
  // Every 251st positive finite float, from the denormals up to FLT_MAX, and its negation.
  constexpr uint32_t kStep = 251;
  constexpr uint32_t kInfinityBits = 0x7f800000;
  std::vector<float> x;
  for (uint32_t bits = 0; bits < kInfinityBits; bits += kStep) {
    x.push_back(std::bit_cast<float>(bits));
    x.push_back(-std::bit_cast<float>(bits));
  }
  const std::vector<float> out = flex_tanh(x);
  double worst = 0.0;
  float worst_at = 0.0F;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double error = ulp_error(out[i], std::tanh(static_cast<double>(x[i])));
    if (error > worst) {
      worst = error;
      worst_at = x[i];
    }
    ASSERT_LE(std::abs(out[i]), 1.0F) << "tanh(" << x[i] << ")";
  }
  EXPECT_LE(worst, 8.0) << "worst at x = " << worst_at;
}

TEST(FlexTanh, GivesSpecialValuesExactly) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  constexpr float kDenormal = std::numeric_limits<float>::denorm_min();
  constexpr float kMax = std::numeric_limits<float>::max();
  const std::vector<float> x = {
      0.0F,  -0.0F,  kInf, -kInf, kDenormal, 1e-40F, -1e-40F,     std::numeric_limits<float>::min(),
      3e-4F, -3e-4F, kMax, -kMax, 20.0F,     -20.0F, 9.01091385F, -9.01091385F};
  const std::vector<float> out = flex_tanh(x);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const float exact = std::tanh(x[i]);
    EXPECT_EQ(out[i], exact) << "tanh(" << x[i] << ")";
    EXPECT_EQ(std::signbit(out[i]), std::signbit(exact)) << "tanh(" << x[i] << ")";
  }
  const std::vector<float> nan = flex_tanh({std::numeric_limits<float>::quiet_NaN()});
  EXPECT_TRUE(std::isnan(nan[0]));
}

}  // namespace
}  // namespace ember::flex::test
