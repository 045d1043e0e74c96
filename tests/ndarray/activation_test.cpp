// The activation and softmax kernels at the points where a naive formula fails: large |x|
// (overflowing exp), NaN, the saturation points of the hard activations, f16 computed in f32
// and rounded once, and softmax lanes along either dim, empty or holding a NaN.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "ndarray_test_util.h"

namespace ember::ndarray::test {
namespace {

using ir::ActivationOp;

TensorData f64(std::vector<double> values) {
  const auto n = static_cast<int64_t>(values.size());
  return TensorData(values, Shape{n});
}

TensorData activation(ActivationOp op, const TensorData& x, double alpha = 0.0, double beta = 1.0) {
  return run(ir::Activation{op, alpha, beta}, {x});
}

/// Expects values within 1e-15 relative (f64 libm results), NaN equal to NaN.
void expect_near(const TensorData& data, const std::vector<double>& expected) {
  const std::vector<double> actual = data.to_vector<double>();
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (std::isnan(expected[i])) {
      EXPECT_TRUE(std::isnan(actual[i])) << "element " << i << ": " << actual[i];
    } else {
      EXPECT_NEAR(actual[i], expected[i], 1e-15 * std::max(1.0, std::abs(expected[i])))
          << "element " << i;
    }
  }
}

TEST(NdArrayActivation, ReluKeepsNaN) {
  expect_data<double>(activation(ActivationOp::Relu, f64({-1.0, 0.0, 2.0, kNaN})), {4},
                      {0.0, 0.0, 2.0, kNaN});
}

TEST(NdArrayActivation, SigmoidFamilyIsStableForLargeInputs) {
  const TensorData x = f64({-1000.0, 1000.0});
  expect_data<double>(activation(ActivationOp::Sigmoid, x), {2}, {0.0, 1.0});
  // log_sigmoid(x) = -softplus(-x): -1000 and -log1p(exp(-1000)) = -0.
  expect_data<double>(activation(ActivationOp::LogSigmoid, x), {2}, {-1000.0, 0.0});
  expect_data<double>(activation(ActivationOp::Softplus, x), {2}, {0.0, 1000.0});
  expect_data<double>(activation(ActivationOp::Silu, x), {2}, {-0.0, 1000.0});
  expect_data<double>(activation(ActivationOp::Mish, x), {2}, {-0.0, 1000.0});
}

TEST(NdArrayActivation, SoftplusIsLinearPastTheThreshold) {
  // beta = 2: 2 * 10.5 = 21 > 20 gives x itself; 2 * 9.5 = 19 gives log1p(exp(19)) / 2.
  expect_near(activation(ActivationOp::Softplus, f64({10.5, 9.5}), 0.0, 2.0),
              {10.5, std::log1p(std::exp(19.0)) / 2.0});
}

TEST(NdArrayActivation, ExponentialUnits) {
  const TensorData x = f64({-2.0, 3.0, -kInf});
  // elu, alpha 0.5: 0.5 * (e^-2 - 1), 3, -0.5.
  expect_near(activation(ActivationOp::Elu, x, 0.5), {0.5 * std::expm1(-2.0), 3.0, -0.5});
  // celu, alpha 2: 2 * (e^-1 - 1).
  expect_near(activation(ActivationOp::Celu, x, 2.0), {2.0 * std::expm1(-1.0), 3.0, -2.0});
  // selu(-inf) = -scale * alpha = -1.0507009873554805 * 1.6732632423543772.
  expect_near(activation(ActivationOp::Selu, x),
              {1.0507009873554805 * 1.6732632423543772 * std::expm1(-2.0), 1.0507009873554805 * 3.0,
               -1.758099340847377});
}

TEST(NdArrayActivation, LeakyReluScalesNegatives) {
  expect_data<double>(activation(ActivationOp::LeakyRelu, f64({-4.0, 0.0, 3.0}), 0.25), {3},
                      {-1.0, 0.0, 3.0});
}

TEST(NdArrayActivation, GeluAtKnownPoints) {
  // gelu(1) = Phi(1) = 0.8413447460685429; gelu(-1) = -Phi(-1) = -(1 - Phi(1)).
  expect_near(activation(ActivationOp::Gelu, f64({0.0, 1.0, -1.0})),
              {0.0, 0.8413447460685429, -0.15865525393145707});
}

TEST(NdArrayActivation, HardActivationsSaturateAtThree) {
  const TensorData x = f64({-4.0, -3.0, 0.0, 1.5, 3.0, 4.0, kNaN});
  expect_data<double>(activation(ActivationOp::HardSigmoid, x), {7},
                      {0.0, 0.0, 0.5, 0.75, 1.0, 1.0, kNaN});
  expect_data<double>(activation(ActivationOp::HardSwish, x), {7},
                      {0.0, -0.0, 0.0, 1.125, 3.0, 4.0, kNaN});
}

TEST(NdArrayActivation, HalfIsComputedInF32AndRoundedOnce) {
  // hard_swish(1) = 4/6 = 0.6666667f, whose nearest f16 is 1365 * 2^-11 = 0.66650390625.
  const TensorData x(std::vector<Half>{Half(1.0f), Half(0.0f)}, Shape{2});
  expect_data<Half>(activation(ActivationOp::HardSwish, x), {2},
                    {Half(0.66650390625f), Half(0.0f)});
  expect_data<Half>(activation(ActivationOp::Sigmoid, x), {2}, {Half(0.7310586f), Half(0.5f)});
}

TEST(NdArrayActivation, RejectsIntegerDtypes) {
  const TensorData ints(std::vector<int32_t>{1}, Shape{1});
  EXPECT_EQ(error_of(ir::Activation{ActivationOp::Relu}, {ints}),
            "[relu] expects a float dtype, got i32");
  EXPECT_EQ(error_of(ir::Softmax{0}, {ints}), "[softmax] expects a float dtype, got i32");
}

TEST(NdArrayActivation, SoftmaxAlongEitherDim) {
  // [[0, ln 3], [0, 0]]: along dim 0, column 0 is [1/2, 1/2] and column 1 [3/4, 1/4]; along
  // dim 1, row 0 is [1/4, 3/4] and row 1 [1/2, 1/2].
  const TensorData x(std::vector<double>{0.0, std::log(3.0), 0.0, 0.0}, Shape{2, 2});
  expect_near(run(ir::Softmax{0}, {x}), {0.5, 0.75, 0.5, 0.25});
  expect_near(run(ir::Softmax{1}, {x}), {0.25, 0.75, 0.5, 0.5});
  expect_near(run(ir::Softmax{1, true}, {x}),
              {std::log(0.25), std::log(0.75), std::log(0.5), std::log(0.5)});
}

TEST(NdArrayActivation, SoftmaxSubtractsTheMaximum) {
  // exp(1000) overflows; with the maximum subtracted: [1, e] / (1 + e).
  const TensorData x = f64({1000.0, 1001.0});
  const double e = std::exp(1.0);
  expect_near(run(ir::Softmax{0}, {x}), {1.0 / (1.0 + e), e / (1.0 + e)});
  expect_near(run(ir::Softmax{0, true}, {f64({1000.0, 1000.0})}), {-std::log(2.0), -std::log(2.0)});
}

TEST(NdArrayActivation, SoftmaxLanesAreIndependent) {
  // A NaN poisons its own lane only; an all -inf lane is 0/0 = NaN, as in PyTorch.
  const TensorData x(std::vector<double>{kNaN, 1.0, 2.0, 2.0, -kInf, -kInf}, Shape{3, 2});
  expect_near(run(ir::Softmax{1}, {x}), {kNaN, kNaN, 0.5, 0.5, kNaN, kNaN});
  const TensorData empty(std::vector<double>{}, Shape{3, 0});
  EXPECT_EQ(run(ir::Softmax{1}, {empty}).shape(), (Shape{3, 0}));
}

}  // namespace
}  // namespace ember::ndarray::test
