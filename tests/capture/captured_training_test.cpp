// A whole training step of the Fashion-MNIST CNN (examples/fashion_mnist.h: convolutions, max
// pools, dropout, cross-entropy, backward, SGD) captured once, then replayed ten times on cpu with
// each step's parameters and batch: the parameters equal, bit for bit, those of ten eager steps
// of the same code on cpu. Random batches of the dataset's shapes (the data plays no part). The
// graph holds cross_entropy as the fused op and its gradient op, which cpu runs fused as its eager
// step does; on ndarray, which runs neither fused, the replay expands them into their composites.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "capture/capture_test_util.h"
#include "ember/ember.h"
#include "fashion_mnist.h"

namespace ember::test {
namespace {

using fashion_mnist::Cnn;

constexpr int64_t kBatch = 4;
constexpr int kSteps = 10;
constexpr double kLearningRate = 0.05;
constexpr uint64_t kSeed = 2024;

/// One SGD step on a batch: the code both runs execute, eagerly and recorded.
std::pair<Cnn, Tensor<1>> train_step(const Cnn& model, const Tensor<4>& images,
                                     const Tensor<1, Int>& targets) {
  const Tensor<1> loss = module::cross_entropy(model.forward(images), targets);
  const Gradients grads = loss.backward();
  Cnn next = model;
  optim::SgdConfig{}.init().step(next, optim::GradientsParams::from(next, grads), kLearningRate);
  return {std::move(next), loss};
}

/// Batch `step`'s images and targets: pseudo-random values from a fixed linear congruence.
std::pair<TensorData, TensorData> batch(int step) {
  uint64_t state = 0x9e3779b97f4a7c15ULL * static_cast<uint64_t>(step + 1);
  const auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 33;
  };
  std::vector<float> images(kBatch * 28 * 28);
  for (float& pixel : images)
    pixel = static_cast<float>(next() % 256) / 255.0f;
  std::vector<int64_t> targets(kBatch);
  for (int64_t& target : targets)
    target = static_cast<int64_t>(next() % 10);
  return {TensorData(images, Shape{kBatch, 1, 28, 28}), TensorData(targets, Shape{kBatch})};
}

/// Replaces every param of a model on the autodiff capture device by a placeholder named by its
/// path, keeping the placeholders in the model's order.
class ParamsToPlaceholders final : public nn::ModuleVisitor {
 public:
  void param(const std::string& path, nn::ParamBase& param) override {
    const TensorHandle input =
        Graph::input(path, param.handle().shape(), param.handle().dtype(), Device::capture());
    param.assign(ops::with_autodiff(input, true));
    inputs.push_back(input);
  }
  std::vector<TensorHandle> inputs;
};

std::vector<TensorHandle> parameters_of(const Cnn& model) {
  std::vector<TensorHandle> params;
  for (const nn::NamedTensor& param : nn::named_parameters(model))
    params.push_back(param.tensor);
  return params;
}

/// The training step recorded: inputs the params, images and targets; outputs the new params and
/// the loss.
Graph captured_step() {
  Cnn model = Cnn::init(Device::capture().autodiff());
  ParamsToPlaceholders placeholders;
  nn::visit(model, placeholders);
  const Tensor<4> images = placeholder<4>("images", {kBatch, 1, 28, 28});
  const Tensor<1, Int> targets = placeholder<1, Int>("targets", {kBatch}, DType::I64);
  const auto [next, loss] = train_step(model, images, targets);
  std::vector<TensorHandle> inputs = placeholders.inputs;
  inputs.push_back(images.handle());
  inputs.push_back(targets.handle());
  std::vector<TensorHandle> outputs = parameters_of(next);
  std::vector<std::string> names;
  for (const nn::NamedTensor& param : nn::named_parameters(next))
    names.push_back(param.name);
  outputs.push_back(loss.handle());
  names.push_back("loss");
  return Graph::trace(inputs, outputs, names);
}

/// One step's inputs on device: params, then the batch's images and targets.
std::vector<TensorHandle> step_inputs(std::vector<TensorHandle> params, int step,
                                      const Device& device) {
  const auto [images, targets] = batch(step);
  params.push_back(ops::from_data(images, device, TensorKind::Float));
  params.push_back(ops::from_data(targets, device, TensorKind::Int));
  return params;
}

/// The parameters after steps replays of graph on device, from the model kSeed initializes,
/// and the first step's loss.
std::pair<std::vector<TensorHandle>, TensorHandle> replayed_training(const Graph& graph,
                                                                     const Device& device,
                                                                     int steps) {
  device.seed(kSeed);
  std::vector<TensorHandle> params = parameters_of(Cnn::init(device));
  std::optional<TensorHandle> first_loss;
  for (int step = 0; step < steps; ++step) {
    std::vector<TensorHandle> outputs = graph.replay(device, step_inputs(params, step, device));
    if (!first_loss) first_loss = outputs.back();
    params.assign(outputs.begin(), outputs.begin() + static_cast<std::ptrdiff_t>(params.size()));
  }
  return {params, *first_loss};
}

/// The parameters after steps eager steps on device, from the model kSeed initializes, and the
/// first step's loss.
std::pair<std::vector<TensorHandle>, TensorHandle> eager_training(const Device& device, int steps) {
  device.seed(kSeed);
  Cnn model = Cnn::init(device.autodiff());
  std::optional<TensorHandle> first_loss;
  for (int step = 0; step < steps; ++step) {
    const auto [images, targets] = batch(step);
    auto [next, loss] = train_step(model, Tensor<4>::from_data(images, device),
                                   Tensor<1, Int>::from_data(targets, device));
    if (!first_loss) first_loss = loss.handle();
    model = std::move(next);
  }
  return {parameters_of(model), *first_loss};
}

TEST(CapturedTraining, TenReplayedStepsOnCpuEqualTenEagerStepsBitForBit) {
  const Device cpu = Device::cpu();
  const std::vector<TensorHandle> expected = eager_training(cpu, kSteps).first;
  const Graph graph = captured_step();
  // Forward, backward and update: far more ops than the forward pass's dozen.
  EXPECT_GT(graph.op_count(), 40u);
  // cross_entropy recorded as the fused op, whose backward rule emits its gradient op.
  const std::string text = graph.to_text();
  EXPECT_NE(text.find("= cross_entropy("), std::string::npos);
  EXPECT_NE(text.find("= cross_entropy_backward("), std::string::npos);
  const std::vector<TensorHandle> replayed = replayed_training(graph, cpu, kSteps).first;
  ASSERT_EQ(replayed.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_EQ(bits_of(replayed[i]), bits_of(expected[i])) << "param " << i;
  // Training moved them: the equality is not that of two untouched initializations.
  cpu.seed(kSeed);
  EXPECT_NE(bits_of(parameters_of(Cnn::init(cpu))[0]), bits_of(expected[0]));
  // The graph read back from its text trains the same.
  const std::vector<TensorHandle> from_text =
      replayed_training(Graph::from_text(text), cpu, kSteps).first;
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_EQ(bits_of(from_text[i]), bits_of(expected[i])) << "param " << i << " (from text)";
}

TEST(CapturedTraining, ReplayedOnNdarrayTheFusedOpsRunAsTheEagerComposites) {
  // ndarray runs cross_entropy as its composite: the replay expands the fused op into the same
  // composite, so the loss equals the eager one bit for bit. The gradient op's composite is the
  // derivative written out (softmax minus the one-hot targets), where the eager step
  // differentiates the composite op by op: the parameters agree within rounding.
  constexpr int kNdarraySteps = 3;
  const Device ndarray = Device::ndarray();
  const auto [expected, expected_loss] = eager_training(ndarray, kNdarraySteps);
  const auto [replayed, replayed_loss] = replayed_training(captured_step(), ndarray, kNdarraySteps);
  EXPECT_EQ(bits_of(replayed_loss), bits_of(expected_loss));
  ASSERT_EQ(replayed.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_LT(largest_difference(replayed[i], expected[i]), 1e-6) << "param " << i;
}

}  // namespace
}  // namespace ember::test
