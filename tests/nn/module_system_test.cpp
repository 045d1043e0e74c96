// The module system (nn/module.h, nn/param.h) on toy modules built from Params and Buffers
// directly, so these tests do not depend on any layer.
#include <gtest/gtest.h>

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "ember/nn/module.h"
#include "support/suite_device.h"

namespace ember::nn {
namespace {

Tensor<2> filled(int64_t rows, int64_t cols, double value, const Device& device) {
  return Tensor<2>::full({rows, cols}, value, device);
}

struct Leaf {
  Param<2> weight;
  std::optional<Param<1>> bias;
  Buffer<1> count;
  bool training = true;
  EMBER_MODULE(weight, bias, count)
};

struct Tree {
  Leaf first;
  std::vector<Leaf> layers;
  std::array<Param<1>, 2> pair;
  EMBER_MODULE(first, layers, pair)
};

struct Two {
  Leaf fc1;
  Leaf fc10;
  EMBER_MODULE(fc1, fc10)
};

Leaf make_leaf(const Device& device, bool with_bias) {
  Leaf leaf{Param<2>(filled(2, 3, 1.0, device)), std::nullopt,
            Buffer<1>(Tensor<1>::zeros({3}, device))};
  if (with_bias) leaf.bias = Param<1>(Tensor<1>::ones({2}, device));
  return leaf;
}

Tree make_tree(const Device& device) {
  return Tree{make_leaf(device, true),
              {make_leaf(device, false), make_leaf(device, true)},
              {Param<1>(Tensor<1>::ones({4}, device)), Param<1>(Tensor<1>::ones({5}, device))}};
}

std::vector<std::string> names_of(const std::vector<NamedTensor>& tensors) {
  std::vector<std::string> names;
  for (const NamedTensor& t : tensors)
    names.push_back(t.name);
  return names;
}

TEST(ModuleSystem, NamedParametersAreDottedPathsInMemberOrder) {
  const Tree tree = make_tree(ember::test::suite_device());
  EXPECT_EQ(names_of(named_parameters(tree)),
            (std::vector<std::string>{"first.weight", "first.bias", "layers.0.weight",
                                      "layers.1.weight", "layers.1.bias", "pair.0", "pair.1"}));
  EXPECT_EQ(names_of(named_buffers(tree)),
            (std::vector<std::string>{"first.count", "layers.0.count", "layers.1.count"}));
  EXPECT_EQ(state(tree).size(), 10u);
  // 3 weights of 6, 2 biases of 2, 4 + 5.
  EXPECT_EQ(num_parameters(tree), 3 * 6 + 2 * 2 + 4 + 5);
}

TEST(ModuleSystem, ParamsRequireGradOnlyOnAnAutodiffDevice) {
  EXPECT_FALSE(make_leaf(ember::test::suite_device(), true).weight.handle().device().is_autodiff());
  EXPECT_FALSE(ops::is_require_grad(make_leaf(ember::test::suite_device(), true).weight.handle()));
  const Leaf leaf = make_leaf(ember::test::suite_device().autodiff(), true);
  EXPECT_TRUE(ops::is_require_grad(leaf.weight.handle()));
  EXPECT_FALSE(ops::is_require_grad(leaf.count.handle()));
}

TEST(ModuleSystem, ToDeviceMovesParamsAndBuffersAndKeepsThemTrainable) {
  const Tree tree =
      to_device(make_tree(ember::test::suite_device()), ember::test::suite_device().autodiff());
  for (const NamedTensor& p : named_parameters(tree)) {
    EXPECT_TRUE(p.tensor.device().is_autodiff()) << p.name;
    EXPECT_TRUE(ops::is_require_grad(p.tensor)) << p.name;
  }
  for (const NamedTensor& b : named_buffers(tree))
    EXPECT_FALSE(ops::is_require_grad(b.tensor)) << b.name;
}

TEST(ModuleSystem, GradientsReachParamsAndFrozenParamsGetNone) {
  Leaf leaf = make_leaf(ember::test::suite_device().autodiff(), true);
  freeze(leaf, "bias");
  const Tensor<2> x = filled(4, 3, 2.0, ember::test::suite_device().autodiff());
  // sum(x W^T + b): d/dW[i, j] = sum over rows of x[:, j] = 8.
  const Tensor<1> loss =
      x.matmul(leaf.weight->transpose()).add(leaf.bias->value().unsqueeze<2>()).sum();
  const Gradients grads = loss.backward();
  ASSERT_TRUE(leaf.weight.grad(grads).has_value());
  EXPECT_EQ(leaf.weight.grad(grads)->into_data().to_vector<double>(), std::vector<double>(6, 8.0));
  EXPECT_FALSE(leaf.bias->grad(grads).has_value());
  EXPECT_FALSE(leaf.bias->trainable());
  EXPECT_TRUE(leaf.weight.trainable());
}

TEST(ModuleSystem, FreezeMatchesWholePathComponents) {
  Two two{make_leaf(ember::test::suite_device(), true),
          make_leaf(ember::test::suite_device(), true)};
  freeze(two, "fc1");
  EXPECT_FALSE(two.fc1.weight.trainable());
  EXPECT_TRUE(two.fc10.weight.trainable());
  unfreeze(two);
  EXPECT_TRUE(two.fc1.weight.trainable());
}

TEST(ModuleSystem, TrainAndEvalSetEveryTrainingFlag) {
  Tree tree = make_tree(ember::test::suite_device());
  eval(tree);
  EXPECT_FALSE(tree.first.training);
  EXPECT_FALSE(tree.layers[1].training);
  train(tree);
  EXPECT_TRUE(tree.layers[0].training);
}

TEST(ModuleSystem, ACopyIsAnIndependentClone) {
  Leaf original = make_leaf(ember::test::suite_device(), true);
  Leaf copy = original;
  copy.weight.assign(filled(2, 3, 5.0, ember::test::suite_device()).handle());
  EXPECT_EQ(original.weight->into_data().to_vector<double>(), std::vector<double>(6, 1.0));
  EXPECT_EQ(copy.weight->into_data().to_vector<double>(), std::vector<double>(6, 5.0));
}

TEST(ModuleSystem, AssignRejectsAnotherShapeAndKeepsTheValue) {
  Leaf leaf = make_leaf(ember::test::suite_device(), true);
  try {
    leaf.weight.assign(filled(3, 2, 5.0, ember::test::suite_device()).handle());
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("[param]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[3, 2]"), std::string::npos) << e.what();
  }
  EXPECT_EQ(leaf.weight->into_data().shape(), Shape({2, 3}));
  EXPECT_THROW(leaf.count.assign(Tensor<1>::zeros({4}, ember::test::suite_device()).handle()),
               InvalidArgument);
}

}  // namespace
}  // namespace ember::nn
