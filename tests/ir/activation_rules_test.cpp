// Rules and names of the activations and softmax.
#include <limits>
#include <string>
#include <vector>

#include "ir_test_support.h"

namespace ember::ir {
namespace {

using test::infer_error;
using test::infer_one;
using test::meta;

TEST(IrActivation, NamesInDeclarationOrder) {
  const std::vector<std::string> expected = {
      "relu",     "leaky_relu", "gelu", "gelu_tanh", "sigmoid", "log_sigmoid",  "silu",
      "softplus", "mish",       "elu",  "selu",      "celu",    "hard_sigmoid", "hard_swish"};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(name(Activation{static_cast<ActivationOp>(i)}), expected[i]);
  }
  EXPECT_EQ(name(Softmax{0}), "softmax");
  EXPECT_EQ(name(Softmax{0, true}), "log_softmax");
}

TEST(IrActivation, KeepsMetaOfEveryFloatDtype) {
  for (DType dtype : {DType::F64, DType::F32, DType::F16, DType::BF16}) {
    EXPECT_EQ(infer_one(Activation{ActivationOp::Gelu}, {meta({2, 3}, dtype)}),
              meta({2, 3}, dtype));
    EXPECT_EQ(infer_one(Softmax{1}, {meta({2, 3}, dtype)}), meta({2, 3}, dtype));
  }
  EXPECT_EQ(infer_one(Activation{ActivationOp::Relu}, {meta({0})}), meta({0}));
  EXPECT_EQ(infer_one(Softmax{1, true}, {meta({4, 0})}), meta({4, 0}));
}

TEST(IrActivation, RejectsNonFloatDtypesAndWrongArity) {
  EXPECT_EQ(infer_error(Activation{ActivationOp::Relu}, {meta({2}, DType::I32)}),
            "[relu] expects a float dtype, got i32");
  EXPECT_EQ(infer_error(Softmax{0, true}, {meta({2}, DType::Bool)}),
            "[log_softmax] expects a float dtype, got bool");
  EXPECT_EQ(infer_error(Softmax{0}, {meta({2}), meta({2})}), "[softmax] expects 1 input, got 2");
  EXPECT_EQ(infer_error(Activation{ActivationOp::Mish}, {}), "[mish] expects 1 input, got 0");
}

TEST(IrActivation, SoftmaxDimMustBeNormalized) {
  EXPECT_EQ(infer_error(Softmax{2}, {meta({2, 3})}), "[softmax] dim 2 out of range for rank 2");
  // The Tensor API resolves negative dims; one reaching ir is out of range.
  EXPECT_EQ(infer_error(Softmax{-1, true}, {meta({2, 3})}),
            "[log_softmax] dim -1 out of range for rank 2");
}

TEST(IrActivation, RejectsBadParametersAndUnknownOps) {
  EXPECT_EQ(infer_error(Activation{ActivationOp::Softplus, 0.0, 0.0}, {meta({2})}),
            "[softplus] beta must be non-zero");
  EXPECT_EQ(infer_error(Activation{ActivationOp::Celu, 0.0}, {meta({2})}),
            "[celu] alpha must be non-zero");
  EXPECT_TRUE(test::contains(
      infer_error(Activation{ActivationOp::LeakyRelu, std::numeric_limits<double>::quiet_NaN()},
                  {meta({2})}),
      "[leaky_relu] negative_slope nan must be finite"));
  EXPECT_EQ(infer_error(Activation{static_cast<ActivationOp>(200)}, {meta({2})}),
            "[invalid_op] unknown activation 200");
  // Parameters the op does not divide by may be zero.
  EXPECT_EQ(infer_one(Activation{ActivationOp::Elu, 0.0}, {meta({2})}), meta({2}));
}

}  // namespace
}  // namespace ember::ir
