// The activations reject what they are not defined for with an InvalidArgument naming the op:
// Int and Bool tensors, a dim out of range, a prelu weight of the wrong size or kind, an odd
// dim for glu, and parameters that are not finite or divide by zero.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "tensor_test_util.h"

namespace ember::test {
namespace {

struct Activation {
  std::string name;
  TensorHandle (*fn)(const TensorHandle&);
};

/// Every activation of one tensor argument, its parameters at their defaults.
std::vector<Activation> activations() {
  return {
      {"relu", ops::relu},
      {"leaky_relu", [](const TensorHandle& x) { return ops::leaky_relu(x); }},
      {"gelu", ops::gelu},
      {"gelu_tanh", ops::gelu_tanh},
      {"sigmoid", ops::sigmoid},
      {"log_sigmoid", ops::log_sigmoid},
      {"silu", ops::silu},
      {"softplus", [](const TensorHandle& x) { return ops::softplus(x); }},
      {"mish", ops::mish},
      {"elu", [](const TensorHandle& x) { return ops::elu(x); }},
      {"selu", ops::selu},
      {"celu", [](const TensorHandle& x) { return ops::celu(x); }},
      {"hard_sigmoid", ops::hard_sigmoid},
      {"hard_swish", ops::hard_swish},
      {"glu", [](const TensorHandle& x) { return ops::glu(x, 0); }},
      {"softmax", [](const TensorHandle& x) { return ops::softmax(x, 0); }},
      {"log_softmax", [](const TensorHandle& x) { return ops::log_softmax(x, 0); }},
      {"prelu", [](const TensorHandle& x) { return ops::prelu(x, f32({1})); }},
  };
}

TEST(ActivationBadInput, IntAndBoolTensors) {
  const TensorHandle ints = handle({1, 2}, Shape{2}, DType::I64);
  const TensorHandle bools = handle({0, 1}, Shape{2}, DType::Bool);
  for (const Activation& a : activations()) {
    const std::string op = "[" + a.name + "]";
    EXPECT_INVALID(a.fn(ints), op, "expects a Float tensor", "i64");
    EXPECT_INVALID(a.fn(bools), op, "expects a Float tensor", "bool");
    EXPECT_INVALID(a.fn(TensorHandle()), op);
  }
}

TEST(ActivationBadInput, DimOutOfRange) {
  EXPECT_INVALID(ops::softmax(f32({2, 3}), 2), "[softmax]", "dim 2", "rank 2");
  EXPECT_INVALID(ops::log_softmax(f32({2, 3}), -3), "[log_softmax]", "dim -3", "rank 2");
  EXPECT_INVALID(ops::glu(f32({2, 4}), 5), "[glu]", "dim 5", "rank 2");
}

TEST(ActivationBadInput, GluNeedsAnEvenDim) {
  EXPECT_INVALID(ops::glu(f32({2, 3}), 1), "[glu]", "dim 1", "[2, 3]", "odd size 3");
  EXPECT_INVALID(ops::glu(f32({5}), -1), "[glu]", "odd size 5");
}

TEST(ActivationBadInput, PreluWeightOfWrongSizeRankOrKind) {
  const TensorHandle x = f32({2, 3, 4});
  EXPECT_INVALID(ops::prelu(x, f32({2})), "[prelu]", "weight [2]", "1 or 3", "[2, 3, 4]");
  EXPECT_INVALID(ops::prelu(x, f32({4})), "[prelu]", "weight [4]");
  EXPECT_INVALID(ops::prelu(x, f32({1, 3})), "[prelu]", "weight [1, 3]");
  // A rank-1 x has one channel: only a single slope fits.
  EXPECT_INVALID(ops::prelu(f32({3}), f32({3})), "[prelu]", "weight [3]", "1 or 1");
  EXPECT_INVALID(ops::prelu(x, handle({1}, Shape{1}, DType::I64)), "[prelu]", "Float", "i64");
  EXPECT_INVALID(ops::prelu(x, TensorHandle()), "[prelu]");
}

TEST(ActivationBadInput, ParametersThatAreNotFiniteOrDivideByZero) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const TensorHandle x = f32({2});
  EXPECT_INVALID(ops::softplus(x, 0.0), "[softplus]", "beta must be non-zero");
  EXPECT_INVALID(ops::softplus(x, kInf), "[softplus]", "beta inf must be finite");
  EXPECT_INVALID(ops::celu(x, 0.0), "[celu]", "alpha must be non-zero");
  EXPECT_INVALID(ops::elu(x, kNaN), "[elu]", "alpha nan must be finite");
  EXPECT_INVALID(ops::leaky_relu(x, -kInf), "[leaky_relu]", "negative_slope -inf must be finite");
}

}  // namespace
}  // namespace ember::test
