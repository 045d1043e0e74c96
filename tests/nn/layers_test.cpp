// The layers together (nn/layers.h): a small CNN built from them has PyTorch's dotted state
// names in its state_dict order, its BatchNorm and Dropout follow nn::train / nn::eval, and one
// backward reaches every param.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ember/nn/layers.h"
#include "support/suite_device.h"

namespace ember::nn {
namespace {

struct TinyCnn {
  Conv2d conv;
  BatchNorm bn;
  Relu relu;
  MaxPool2d pool;
  Flatten flatten;
  Dropout dropout;
  Linear fc;
  EMBER_MODULE(conv, bn, relu, pool, flatten, dropout, fc)

  Tensor<2> forward(const Tensor<4>& x) {
    const Tensor<4> features = pool.forward(relu.forward(bn.forward(conv.forward(x))));
    return fc.forward(dropout.forward(flatten.forward(features)));
  }
};

TinyCnn make_cnn(const Device& device) {
  return {
      Conv2dConfig{.in_channels = 1, .out_channels = 2, .kernel_size = {3}, .padding = {1}}.init(
          device),
      BatchNormConfig{2}.init(device),
      Relu{},
      MaxPool2dConfig{.kernel_size = {2}}.init(device),
      FlattenConfig{}.init(device),
      DropoutConfig{0.5}.init(device),
      LinearConfig{2 * 2 * 2, 3}.init(device)};
}

TEST(Layers, StateNamesAreDottedPyTorchNames) {
  std::vector<std::string> names;
  for (const NamedTensor& t : state(make_cnn(ember::test::suite_device())))
    names.push_back(t.name);
  EXPECT_EQ(names, (std::vector<std::string>{"conv.weight", "conv.bias", "bn.weight", "bn.bias",
                                             "bn.running_mean", "bn.running_var",
                                             "bn.num_batches_tracked", "fc.weight", "fc.bias"}));
}

TEST(Layers, TrainAndEvalReachBatchNormAndDropout) {
  TinyCnn cnn = make_cnn(ember::test::suite_device());
  eval(cnn);
  EXPECT_FALSE(cnn.bn.training);
  EXPECT_FALSE(cnn.dropout.training);
  train(cnn);
  EXPECT_TRUE(cnn.bn.training);
  EXPECT_TRUE(cnn.dropout.training);
}

TEST(Layers, OneBackwardReachesEveryParam) {
  const Device device = ember::test::suite_device().autodiff();
  TinyCnn cnn = make_cnn(device);
  const Tensor<4> x = Tensor<4>::random({2, 1, 4, 4}, Distribution::normal(0.0, 1.0), device);
  const Tensor<2> y = cnn.forward(x);
  EXPECT_EQ(y.shape(), Shape({2, 3}));
  const Gradients grads = y.mul(y).sum().backward();
  for (const NamedTensor& p : named_parameters(cnn))
    EXPECT_TRUE(grads.get(p.tensor).has_value()) << p.name;
  EXPECT_EQ(cnn.bn.num_batches_tracked->value().into_data().to_vector<double>(),
            std::vector<double>{1});
}

}  // namespace
}  // namespace ember::nn
