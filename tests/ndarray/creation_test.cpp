// Creation ops of the reference backend: full, arange, and random (determinism and moments).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "ir/random.h"
#include "ndarray_test_util.h"

namespace ember::ndarray::test {
namespace {

TEST(NdArrayCreation, FullConvertsTheValue) {
  expect_data<float>(run(ir::Full{{2, 2}, DType::F32, Scalar(3)}), {2, 2}, {3, 3, 3, 3});
  expect_data<int8_t>(run(ir::Full{{2}, DType::I8, Scalar(-7)}), {2}, {-7, -7});
  expect_data<bool>(run(ir::Full{{1}, DType::Bool, Scalar(true)}), {1}, {true});
}

TEST(NdArrayCreation, ArangeStepsBothWays) {
  expect_data<int64_t>(run(ir::Arange{2, 11, 3, DType::I64}), {3}, {2, 5, 8});
  expect_data<int16_t>(run(ir::Arange{5, 0, -2, DType::I16}), {3}, {5, 3, 1});
  // i * step overflows int64 for i = 3 here, though every value fits.
  constexpr int64_t kStep = int64_t{1} << 62;
  expect_data<int64_t>(run(ir::Arange{INT64_MIN, INT64_MAX, kStep, DType::I64}), {4},
                       {INT64_MIN, INT64_MIN + kStep, 0, kStep});
}

TEST(NdArrayCreation, RandomIsAFunctionOfTheKey) {
  const auto draw = [](uint64_t key) {
    return run(ir::Random{{64}, DType::F32, Distribution::Default, key});
  };
  EXPECT_EQ(draw(7), draw(7));
  EXPECT_NE(draw(7), draw(8));
  // Element i is the stream's element i (ir/random.h), in row-major order.
  const auto uniform = [](DType dtype) {
    return run(ir::Random{{2, 3}, dtype, Distribution::Default, 42});
  };
  const TensorData f64 = uniform(DType::F64);
  const TensorData f32 = uniform(DType::F32);
  const TensorData f16 = uniform(DType::F16);
  for (uint64_t i = 0; i < 6; ++i) {
    const double u = f64.as<double>()[i];
    EXPECT_EQ(u, ir::random_value<double>(Distribution::Default, 42, i));
    // f32 draws from the same bits: the f64 draw truncated to 24 bits; f16 rounds the f32 draw.
    const float truncated = static_cast<float>(std::ldexp(std::floor(std::ldexp(u, 24)), -24));
    EXPECT_EQ(f32.as<float>()[i], truncated);
    EXPECT_EQ(f16.as<Half>()[i].bits, Half(truncated).bits);
  }
}

/// Mean and (population) standard deviation of data's values.
std::pair<double, double> moments(const TensorData& data) {
  const std::vector<double> values = data.to_vector<double>();
  double sum = 0;
  for (const double v : values)
    sum += v;
  const double mean = sum / static_cast<double>(values.size());
  double squares = 0;
  for (const double v : values)
    squares += (v - mean) * (v - mean);
  return {mean, std::sqrt(squares / static_cast<double>(values.size()))};
}

TEST(NdArrayCreation, BernoulliMeanIsP) {
  // 10k draws of p = 0.3: the mean's standard error is sqrt(0.3 * 0.7 / 10000) ≈ 0.0046;
  // 5 sigma is 0.023.
  const TensorData x = run(ir::Random{{10000}, DType::F32, Distribution::bernoulli(0.3), 1});
  EXPECT_NEAR(moments(x).first, 0.3, 0.023);
  // In Bool every draw is 0 or 1 too.
  const TensorData b = run(ir::Random{{10000}, DType::Bool, Distribution::bernoulli(0.3), 1});
  EXPECT_NEAR(moments(b).first, 0.3, 0.023);
}

TEST(NdArrayCreation, NormalHasTheRequestedMoments) {
  // N(2, 3), 10k draws: standard error of the mean 3 / 100, of the std about 3 / sqrt(2 * 10k).
  // f32 computes Box-Muller in f32, f64 in f64.
  for (const DType dtype : {DType::F64, DType::F32}) {
    const auto [mean, stddev] =
        moments(run(ir::Random{{100, 100}, dtype, Distribution::normal(2, 3), 5}));
    EXPECT_NEAR(mean, 2.0, 5 * 0.03) << dtype;
    EXPECT_NEAR(stddev, 3.0, 5 * 3 / std::sqrt(20000.0)) << dtype;
  }
}

TEST(NdArrayCreation, IntegerUniformTakesTheFloor) {
  // uniform(0, 10) floored: every value 0..9 appears among 1000 draws, nothing else.
  const TensorData x = run(ir::Random{{1000}, DType::I32, Distribution::uniform(0, 10), 3});
  std::vector<int> counts(10, 0);
  for (const int32_t v : x.as<int32_t>()) {
    ASSERT_GE(v, 0);
    ASSERT_LT(v, 10);
    ++counts[static_cast<std::size_t>(v)];
  }
  for (const int count : counts)
    EXPECT_GT(count, 0);
}

}  // namespace
}  // namespace ember::ndarray::test
