// A whole training step of the Fashion-MNIST CNN (examples/fashion_mnist.h: convolutions, max
// pools, dropout, cross-entropy, backward, SGD) captured once, then replayed ten times on cpu with
// each step's parameters and batch: the parameters equal, bit for bit, those of ten eager steps
// of the same code on cpu. Random batches of the dataset's shapes (the data plays no part). The
// capture device runs no fused op, so the graph holds cross_entropy's composite; the eager steps
// take it too (tensor::FusedPathScope), where cpu would run its fused kernel, equal only within
// rounding.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "capture/capture_test_util.h"
#include "ember/ember.h"
#include "fashion_mnist.h"
#include "tensor/fused_path.h"

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

/// The parameters after kSteps replays of graph on cpu, from the model kSeed initializes.
std::vector<TensorHandle> replayed_training(const Graph& graph) {
  const Device cpu = Device::cpu();
  cpu.seed(kSeed);
  std::vector<TensorHandle> params = parameters_of(Cnn::init(cpu));
  for (int step = 0; step < kSteps; ++step) {
    const auto [images, targets] = batch(step);
    std::vector<TensorHandle> inputs = params;
    inputs.push_back(ops::from_data(images, cpu, TensorKind::Float));
    inputs.push_back(ops::from_data(targets, cpu, TensorKind::Int));
    std::vector<TensorHandle> outputs = graph.replay(cpu, inputs);
    params.assign(outputs.begin(), outputs.begin() + static_cast<std::ptrdiff_t>(params.size()));
  }
  return params;
}

TEST(CapturedTraining, TenReplayedStepsOnCpuEqualTenEagerStepsBitForBit) {
  const Device cpu = Device::cpu();
  cpu.seed(kSeed);
  const tensor::FusedPathScope composite(tensor::FusedPath::Composite);
  Cnn eager = Cnn::init(cpu.autodiff());
  for (int step = 0; step < kSteps; ++step) {
    const auto [images, targets] = batch(step);
    eager = train_step(eager, Tensor<4>::from_data(images, cpu),
                       Tensor<1, Int>::from_data(targets, cpu))
                .first;
  }
  const Graph graph = captured_step();
  // Forward, backward and update: far more ops than the forward pass's dozen.
  EXPECT_GT(graph.op_count(), 40u);
  const std::vector<TensorHandle> replayed = replayed_training(graph);
  const std::vector<TensorHandle> expected = parameters_of(eager);
  ASSERT_EQ(replayed.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_EQ(bits_of(replayed[i]), bits_of(expected[i])) << "param " << i;
  // Training moved them: the equality is not that of two untouched initializations.
  cpu.seed(kSeed);
  EXPECT_NE(bits_of(parameters_of(Cnn::init(cpu))[0]), bits_of(expected[0]));
  // The graph read back from its text trains the same.
  const std::vector<TensorHandle> from_text = replayed_training(Graph::from_text(graph.to_text()));
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_EQ(bits_of(from_text[i]), bits_of(expected[i])) << "param " << i << " (from text)";
}

}  // namespace
}  // namespace ember::test
