// ONNX export of captured graphs, checked by onnxruntime (PyPI, in the venv
// tests/capture/python/install-onnxruntime makes; the check skips without it): the Fashion-MNIST
// CNN and a transformer encoder layer, traced with their weights as constants, run in onnxruntime
// within 1e-5 of ember, at another batch size than traced when the batch is dynamic.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "capture/capture_test_util.h"
#include "device/device_test_util.h"
#include "ember/ember.h"
#include "ember/record/numpy.h"
#include "fashion_mnist.h"
#include "support/source_dir.h"

namespace ember::test {
namespace {

namespace fs = std::filesystem;
using fashion_mnist::Cnn;

/// The venv's Python, when its onnxruntime imports; empty otherwise.
std::string onnxruntime_python() {
  const char* venv = std::getenv("EMBER_ONNXRUNTIME_VENV");
  const fs::path python =
      fs::path(venv != nullptr ? venv : "/opt/ember-onnxruntime") / "bin/python";
  if (!fs::exists(python)) return "";
  const std::string probe = python.string() + " -c 'import numpy, onnxruntime' 2>/dev/null";
  return std::system(probe.c_str()) == 0 ? python.string() : "";
}

/// Images [batch, 1, 28, 28] of values in [0, 1).
TensorData images(int64_t batch) {
  std::vector<float> values(static_cast<std::size_t>(batch * 28 * 28));
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<float>((i * 7919) % 1000) / 1000.0f;
  return TensorData(values, Shape{batch, 1, 28, 28});
}

/// The CNN's forward pass in eval mode, traced at batch 2 with the weights of model as constants.
Graph traced_forward(const Cnn& model) {
  const Cnn captured = nn::to_device(model, Device::capture());
  const Tensor<4> x = placeholder<4>("images", {2, 1, 28, 28});
  return Graph::trace({x.handle()}, {captured.forward(x).handle()}, {"logits"});
}

/// A test that runs exported models in onnxruntime (skipped without the venv): each writes its
/// model to dir() / "model.onnx", then checks it with expect_onnxruntime_agrees.
class OnnxRuntimeCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    python_ = onnxruntime_python();
    if (python_.empty())
      GTEST_SKIP() << "no onnxruntime venv: run tests/capture/python/install-onnxruntime";
    dir_ = fs::temp_directory_path() / ("ember_onnx_" + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  const fs::path& dir() const { return dir_; }

  /// Runs dir()/model.onnx in onnxruntime on input and compares with expected (ember's values).
  void expect_onnxruntime_agrees(const TensorData& input, const TensorData& expected) const {
    record::save_npy(dir_ / "input.npy", input);
    record::save_npy(dir_ / "expected.npy", expected);
    const std::string command =
        python_ + " " +
        (fs::path(source_dir()) / "tests/capture/python/onnxruntime_check.py").string() + " " +
        (dir_ / "model.onnx").string() + " " + (dir_ / "input.npy").string() + " " +
        (dir_ / "expected.npy").string() + " 1e-5";
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
  }

 private:
  std::string python_;
  fs::path dir_;
};

TEST_F(OnnxRuntimeCheck, TheCnnRunsWithinATolerance) {
  const Device cpu = Device::cpu();
  cpu.seed(11);
  Cnn model = Cnn::init(cpu);
  nn::eval(model);
  for (const bool dynamic : {false, true}) {
    const int64_t batch = dynamic ? 5 : 2;  // dynamic: another batch than traced
    onnx::save_onnx(traced_forward(model), dir() / "model.onnx",
                    onnx::ExportOptions{.dynamic_batch = dynamic});
    const Tensor<4> x = Tensor<4>::from_data(images(batch), cpu);
    expect_onnxruntime_agrees(images(batch), model.forward(x).into_data());
  }
}

TEST_F(OnnxRuntimeCheck, ReductionsSoftmaxAndScalarsRunAtOpsets17And18) {
  // Reductions take their axes as an input from opset 18 on (an attribute before, but for sum).
  const auto net = [](const Tensor<2>& x) {
    const Tensor<2> p = activation::softmax(activation::leaky_relu(x * 2.0 - 1.0, 0.1), 1);
    return (p.mean_dim(1) + p.max_dim(1) - p.sum_dim(1) * 0.5).exp();
  };
  const Tensor<2> x = placeholder<2>("x", {3, 4});
  const Graph graph = Graph::trace({x.handle()}, {net(x).handle()});
  const TensorData input(std::vector<float>{0.1f, -0.7f, 1.3f, 0.4f, 2.0f, -1.1f, 0.0f, 0.9f, -0.3f,
                                            0.6f, -2.2f, 1.7f},
                         Shape{3, 4});
  for (const int64_t opset : {17, 18}) {
    onnx::save_onnx(graph, dir() / "model.onnx", onnx::ExportOptions{.opset = opset});
    expect_onnxruntime_agrees(input, net(Tensor<2>::from_data(input, Device::cpu())).into_data());
  }
}

TEST_F(OnnxRuntimeCheck, ATransformerEncoderLayerRunsWithinATolerance) {
  const Device cpu = Device::cpu();
  cpu.seed(5);
  std::vector<float> values(3 * 5 * 16);
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<float>(static_cast<int>((i * 37) % 19) - 9) / 7.0f;
  const TensorData input(values, Shape{3, 5, 16});
  for (const auto activation : {nn::TransformerActivation::Relu, nn::TransformerActivation::Gelu}) {
    nn::TransformerEncoderLayer layer =
        nn::TransformerEncoderLayerConfig{
            .d_model = 16, .nhead = 2, .dim_feedforward = 32, .activation = activation}
            .init(cpu);
    nn::eval(layer);
    const nn::TransformerEncoderLayer captured = nn::to_device(layer, Device::capture());
    const Tensor<3> x = placeholder<3>("x", {2, 5, 16});
    const Graph graph = Graph::trace({x.handle()}, {captured.forward(x).handle()}, {"encoded"});
    const TensorData expected = layer.forward(Tensor<3>::from_data(input, cpu)).into_data();
    // GELU is an ONNX op from opset 20, written as erf's formula before.
    for (const int64_t opset : {17, 20}) {
      onnx::save_onnx(graph, dir() / "model.onnx",
                      onnx::ExportOptions{.opset = opset, .dynamic_batch = true});
      expect_onnxruntime_agrees(input, expected);
    }
  }
}

TEST(OnnxExport, WritesAModelOfTheOpsetAskedForWithTheWeightsAsInitializers) {
  const Device cpu = Device::cpu();
  Cnn model = Cnn::init(cpu);
  nn::eval(model);
  const std::string bytes = onnx::to_onnx(traced_forward(model));
  // The four layers' weights and biases travel in the model: at least their 206922 f32 values.
  EXPECT_GT(bytes.size(), 206922u * 4);
  EXPECT_TRUE(contains(bytes, "Conv"));
  EXPECT_TRUE(contains(bytes, "MaxPool"));
  EXPECT_TRUE(contains(bytes, "logits"));
}

TEST(OnnxExport, AnOpWithoutAnOnnxFormIsNamedWithItsNode) {
  const Tensor<2> x = placeholder<2>("x", {2, 3});
  const Graph sorted = Graph::trace({x.handle()}, {x.sort(1).handle()});
  const std::string message = error_message<InvalidArgument>([&] { onnx::to_onnx(sorted); });
  EXPECT_TRUE(contains(message, "[onnx::to_onnx] op 'sort' (node %1)")) << message;
  const Graph graph = Graph::trace({x.handle()}, {x.exp().handle()});
  EXPECT_TRUE(contains(error_message<InvalidArgument>(
                           [&] { onnx::to_onnx(graph, onnx::ExportOptions{.opset = 13}); }),
                       "opset 13"));
  const Tensor<2> w = placeholder<2>("w", {3, 3});
  const Graph two_batches = Graph::trace({x.handle(), w.handle()}, {x.matmul(w).handle()});
  EXPECT_TRUE(contains(error_message<InvalidArgument>([&] {
                         onnx::to_onnx(two_batches, onnx::ExportOptions{.dynamic_batch = true});
                       }),
                       "input 'w' has 3, an earlier one 2"));
}

}  // namespace
}  // namespace ember::test
