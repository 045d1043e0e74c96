// The typed activation functions of ember/activation_functions.h: ranks and dtypes kept, prelu's
// weight broadcast along dim 1, glu halving its dim, softmax's negative dims, and results recorded
// by autodiff.
#include <cmath>
#include <vector>

#include "tensor_test_util.h"

namespace ember::test {
namespace {

TEST(Activation, KeepsRankAndDtype) {
  const Tensor<2> x = floats<2>({-1, 2, -3, 4}, {2, 2});
  const Tensor<2> y = activation::relu(x);
  EXPECT_EQ(y.dtype(), DType::F32);
  EXPECT_EQ(values<float>(y), (std::vector<float>{0, 2, 0, 4}));
  const Tensor<2> halves = activation::hard_sigmoid(x.cast(DType::F16));
  EXPECT_EQ(halves.dtype(), DType::F16);
  // relu6(x + 3) / 6: 2/6, 5/6, 0, 1.
  EXPECT_EQ(values<float>(halves),
            (std::vector<float>{float(Half(2.0f / 6)), float(Half(5.0f / 6)), 0, 1}));
}

TEST(Activation, PreluBroadcastsOneSlopePerChannel) {
  // x [1, 2, 2]: channel 0 is [-1, 2], channel 1 is [-4, 4]; slopes 0.5 and 0.25.
  const Tensor<3> x = floats<3>({-1, 2, -4, 4}, {1, 2, 2});
  const Tensor<1> slopes = Tensor<1>::from_floats({0.5, 0.25}, device());
  EXPECT_EQ(values<float>(activation::prelu(x, slopes)), (std::vector<float>{-0.5, 2, -1, 4}));
  const Tensor<1> shared = Tensor<1>::from_floats({0.5}, device());
  EXPECT_EQ(values<float>(activation::prelu(x, shared)), (std::vector<float>{-0.5, 2, -2, 4}));
}

TEST(Activation, PreluCastsTheWeightToXsDtype) {
  const Tensor<2> x = floats<2>({-2, 1}, {1, 2});
  const Tensor<1> slopes = Tensor<1>::from_floats({0.5, 0.5}, device()).cast(DType::F64);
  const Tensor<2> y = activation::prelu(x, slopes);
  EXPECT_EQ(y.dtype(), DType::F32);
  EXPECT_EQ(values<float>(y), (std::vector<float>{-1, 1}));
}

TEST(Activation, GluHalvesItsDim) {
  // a = [1, 2], b = [0, 0]: a * sigmoid(0) = [0.5, 1].
  const Tensor<2> y = activation::glu(floats<2>({1, 2, 0, 0}, {1, 4}), -1);
  EXPECT_EQ(y.shape(), (Shape{1, 2}));
  EXPECT_EQ(values<float>(y), (std::vector<float>{0.5, 1}));
  EXPECT_EQ(activation::glu(floats<2>({}, {0, 4}), 0).shape(), (Shape{0, 4}));
}

TEST(Activation, SoftmaxTakesNegativeDims) {
  // Rows [0, ln 3]: softmax [1/4, 3/4]; log_softmax [ln 1/4, ln 3/4].
  const float ln3 = std::log(3.0f);
  const Tensor<2> x = floats<2>({0, ln3, 0, ln3}, {2, 2});
  const std::vector<float> p = values<float>(activation::softmax(x, -1));
  EXPECT_NEAR(p[0], 0.25f, 1e-6f);
  EXPECT_NEAR(p[1], 0.75f, 1e-6f);
  const std::vector<float> logp = values<float>(activation::log_softmax(x, -1));
  EXPECT_NEAR(logp[2], std::log(0.25f), 1e-6f);
  EXPECT_NEAR(logp[3], std::log(0.75f), 1e-6f);
}

TEST(Activation, TanhIsTheTensorMethod) {
  const Tensor<1> x = Tensor<1>::from_floats({-0.5, 0.25}, device());
  EXPECT_EQ(values<float>(activation::tanh(x)), values<float>(x.tanh()));
}

TEST(Activation, IsRecordedByAutodiff) {
  // d/dx sum(relu(x)) = [0, 1]; d/dx sum(leaky_relu(x, 0.1)) = [0.1, 1].
  const Tensor<1> x = Tensor<1>::from_floats({-2, 3}, device().autodiff()).require_grad();
  const Gradients grads = activation::relu(x).sum().backward();
  EXPECT_EQ(values<float>(*x.grad(grads)), (std::vector<float>{0, 1}));
  const Gradients leaky = activation::leaky_relu(x, 0.1).sum().backward();
  EXPECT_EQ(values<float>(*x.grad(leaky)), (std::vector<float>{0.1f, 1}));
}

}  // namespace
}  // namespace ember::test
