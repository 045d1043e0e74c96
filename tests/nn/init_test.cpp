// Initializers (nn/init.h) against their formulas (torch.nn.init), checked statistically on
// large draws, and Linear's construction and forward against a hand-written x W^T + b.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "ember/ember.h"
#include "ember/nn/init.h"
#include "ember/nn/linear.h"
#include "support/suite_device.h"

namespace ember::nn {
namespace {

std::vector<double> draw(const Initializer& init, const Shape& shape) {
  const TensorCreationOptions options =
      TensorCreationOptions(ember::test::suite_device()).with_dtype(DType::F64);
  return ops::into_data(init.make(shape, options)).to_vector<double>();
}

double mean(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}
double stddev(const std::vector<double>& v) {
  const double m = mean(v);
  double sq = 0;
  for (double x : v)
    sq += (x - m) * (x - m);
  return std::sqrt(sq / static_cast<double>(v.size()));
}
double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v)
    m = std::max(m, std::abs(x));
  return m;
}

TEST(Init, FansFollowPyTorch) {
  EXPECT_EQ(fans_of(Shape{16, 8, 3, 3}).in, 8 * 9);
  EXPECT_EQ(fans_of(Shape{16, 8, 3, 3}).out, 16 * 9);
  EXPECT_EQ(fans_of(Shape{5, 7}).in, 7);
  EXPECT_EQ(fans_of(Shape{5}).out, 5);
}

TEST(Init, KaimingUniformStaysWithinItsBoundAndHasTheUniformStd) {
  // fan_in 100, gain sqrt(2): bound sqrt(2) * sqrt(3 / 100); a uniform's std is bound / sqrt(3).
  const std::vector<double> v = draw(Initializer::kaiming_uniform(), Shape{200, 100});
  const double bound = std::sqrt(2.0) * std::sqrt(3.0 / 100.0);
  EXPECT_LE(max_abs(v), bound);
  EXPECT_GT(max_abs(v), 0.99 * bound);
  EXPECT_NEAR(stddev(v), bound / std::sqrt(3.0), 0.02 * bound);
  EXPECT_NEAR(mean(v), 0.0, 0.02 * bound);
}

TEST(Init, KaimingNormalFanOutAndXavierHaveTheirStd) {
  const std::vector<double> k =
      draw(Initializer::kaiming_normal(2.0, FanMode::FanOut), Shape{50, 400});  // fan_out 50
  EXPECT_NEAR(stddev(k), 2.0 / std::sqrt(50.0), 0.03 * 2.0 / std::sqrt(50.0));
  const std::vector<double> x = draw(Initializer::xavier_normal(), Shape{100, 300});
  EXPECT_NEAR(stddev(x), std::sqrt(2.0 / 400.0), 0.03 * std::sqrt(2.0 / 400.0));
  const std::vector<double> u = draw(Initializer::xavier_uniform(), Shape{100, 300});
  EXPECT_LE(max_abs(u), std::sqrt(6.0 / 400.0));
}

TEST(Init, ConstantUniformAndNormalUseTheirArguments) {
  EXPECT_EQ(draw(Initializer::constant(0.25), Shape{3}), std::vector<double>(3, 0.25));
  const std::vector<double> u = draw(Initializer::uniform(2.0, 3.0), Shape{1000});
  EXPECT_GE(*std::min_element(u.begin(), u.end()), 2.0);
  EXPECT_LT(*std::max_element(u.begin(), u.end()), 3.0);
  EXPECT_NEAR(mean(draw(Initializer::normal(5.0, 0.5), Shape{20000})), 5.0, 0.02);
  EXPECT_THROW(draw(Initializer::uniform(3.0, 2.0), Shape{2}), InvalidArgument);
  EXPECT_THROW(draw(Initializer::normal(0.0, -1.0), Shape{2}), InvalidArgument);
}

TEST(Init, SeedMakesInitializationReproducible) {
  const Device device = ember::test::suite_device();
  device.seed(7);
  const std::vector<double> a = draw(Initializer::kaiming_uniform(), Shape{4, 4});
  device.seed(7);
  EXPECT_EQ(draw(Initializer::kaiming_uniform(), Shape{4, 4}), a);
}

template <std::size_t D>
Tensor<D> floats(std::vector<double> values, const Shape& shape, const Device& device) {
  return Tensor<D>::from_data(TensorData(std::move(values), shape), device);
}

TEST(Linear, ForwardIsXTimesWeightTransposedPlusBias) {
  const Device device = ember::test::suite_device();
  Linear linear = LinearConfig{3, 2}.init(device);
  linear.weight.assign(floats<2>({1, 2, 3, 4, 5, 6}, {2, 3}, device).handle());
  linear.bias->assign(floats<1>({10, 20}, {2}, device).handle());
  const Tensor<2> x = floats<2>({1, 0, -1, 2, 1, 0}, {2, 3}, device);
  // Row 0: [1-3, 4-6] + b = [8, 18]; row 1: [2+2, 8+5] + b = [14, 33].
  EXPECT_EQ(linear.forward(x).into_data().to_vector<double>(),
            (std::vector<double>{8, 18, 14, 33}));
}

TEST(Linear, DefaultInitIsBoundedByOneOverSqrtFanIn) {
  const Linear linear = LinearConfig{64, 32}.init(ember::test::suite_device());
  EXPECT_EQ(linear.weight->dims(), (Tensor<2>::Dims{32, 64}));
  EXPECT_LE(max_abs(linear.weight->into_data().to_vector<double>()), 1.0 / 8.0 + 1e-7);
  EXPECT_LE(max_abs(linear.bias->value().into_data().to_vector<double>()), 1.0 / 8.0 + 1e-7);
  EXPECT_FALSE(LinearConfig({4, 2, false}).init(ember::test::suite_device()).bias.has_value());
  EXPECT_THROW(LinearConfig({0, 2}).init(ember::test::suite_device()), InvalidArgument);
}

}  // namespace
}  // namespace ember::nn
