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
#include "capture/row_ops_step.h"
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

  /// Exports net traced over a placeholder of input's shape, and runs it in onnxruntime on input
  /// against net run eagerly on cpu.
  template <std::size_t D, typename Net>
  void expect_exported_agrees(const Net& net, const TensorData& input, int64_t opset = 17,
                              bool dynamic_batch = false) const {
    std::array<int64_t, D> dims{};
    std::ranges::copy(input.shape().dims(), dims.begin());
    const Tensor<D> x = placeholder<D>("x", dims);
    onnx::save_onnx(Graph::trace({x.handle()}, {net(x).handle()}), dir() / "model.onnx",
                    onnx::ExportOptions{.opset = opset, .dynamic_batch = dynamic_batch});
    expect_onnxruntime_agrees(input, net(Tensor<D>::from_data(input, Device::cpu())).into_data());
  }

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

/// n distinct values in [-1, 1) (no ties, so that sorts agree on the indices), shaped.
TensorData distinct(const Shape& shape) {
  const int64_t n = shape.num_elements();
  std::vector<float> values(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    values[static_cast<std::size_t>(i)] =
        static_cast<float>((i * 37) % n) / static_cast<float>(n) * 2 - 1;
  return TensorData(values, shape);
}

TEST_F(OnnxRuntimeCheck, SortArgsortAndTopkRunAsTopK) {
  const TensorData input = distinct(Shape{3, 7});
  // The values and the indices in one output: v + 10 i.
  expect_exported_agrees<2>(
      [](const Tensor<2>& x) {
        auto [v, i] = x.sort_with_indices(1, false);
        return v + i.to_float() * 10.0;
      },
      input);
  expect_exported_agrees<2>(
      [](const Tensor<2>& x) {
        auto [v, i] = x.topk_with_indices(3, 1);
        return v + i.to_float() * 10.0 + x.argsort(0, true).narrow(1, 0, 3).to_float() * 100.0;
      },
      input);
}

TEST_F(OnnxRuntimeCheck, CumsumRunsAsCumSum) {
  expect_exported_agrees<3>([](const Tensor<3>& x) { return x.cumsum(2) + x.cumsum(0) * 0.5; },
                            distinct(Shape{2, 3, 5}));
}

TEST_F(OnnxRuntimeCheck, InterpolateRunsAsResize) {
  using module::InterpolateMode;
  const TensorData input = distinct(Shape{1, 2, 4, 5});
  const std::vector<module::InterpolateOptions> cases = {
      {.size = ops::Dims{7, 3}, .mode = InterpolateMode::Nearest},
      {.scale_factor = std::vector<double>{2.0, 1.5}, .mode = InterpolateMode::Nearest},
      {.size = ops::Dims{6, 9}, .mode = InterpolateMode::Bilinear},
      {.size = ops::Dims{3, 8}, .mode = InterpolateMode::Bilinear, .align_corners = true},
      {.scale_factor = std::vector<double>{1.5, 2.0}, .mode = InterpolateMode::Bilinear},
      {.size = ops::Dims{7, 6}, .mode = InterpolateMode::Bicubic},
      {.size = ops::Dims{5, 7}, .mode = InterpolateMode::Bicubic, .align_corners = true},
  };
  for (const module::InterpolateOptions& options : cases) {
    expect_exported_agrees<4>([&](const Tensor<4>& x) { return module::interpolate(x, options); },
                              input, 18);
  }
  // A dynamic batch: Resize's sizes name the spatial axes only.
  expect_exported_agrees<4>([&](const Tensor<4>& x) { return module::interpolate(x, cases[2]); },
                            input, 18, true);
}

TEST_F(OnnxRuntimeCheck, TransposedConvolutionRunsAsConvTranspose) {
  const TensorData weight = distinct(Shape{2, 6, 3, 2});  // [C_in, C_out / groups, kh, kw]
  const TensorData bias = distinct(Shape{6});
  const module::ConvTransposeOptions options{.stride = {2, 1},
                                             .padding = {1, 0},
                                             .output_padding = {1, 0},
                                             .dilation = {1, 2},
                                             .groups = 1};
  expect_exported_agrees<4>(
      [&](const Tensor<4>& x) {
        return module::conv_transpose2d(x, Tensor<4>::from_data(weight, x.device()),
                                        Tensor<1>::from_data(bias, x.device()), options);
      },
      distinct(Shape{2, 2, 4, 5}));
  const TensorData grouped = distinct(Shape{4, 3, 3});  // 2 groups of 2 inputs, 3 outputs each
  expect_exported_agrees<3>(
      [&](const Tensor<3>& x) {
        return module::conv_transpose1d(x, Tensor<3>::from_data(grouped, x.device()), std::nullopt,
                                        module::ConvTransposeOptions{.stride = {3}, .groups = 2});
      },
      distinct(Shape{1, 4, 6}));
}

/// outputs flattened into one [n] (a model of one output, for onnxruntime_check.py).
TensorHandle flattened(const ops::Handles& outputs) {
  ops::Handles flat;
  for (const TensorHandle& output : outputs)
    flat.push_back(ops::reshape(output, {-1}));
  return ops::cat(flat, 0);
}

/// row_ops_step's outputs, the leaves but x made of the kRows* values on x's device: what the
/// exported model computes from x.
TensorHandle row_ops_flat(const TensorHandle& x) {
  RowLeaves leaves = row_leaves(x.device());
  leaves.x = x;
  return flattened(row_ops_step(leaves));
}

TEST_F(OnnxRuntimeCheck, FusedRowOpsRunForwardAndBackward) {
  // layer_norm as LayerNormalization, the other fused row ops and every gradient op as their
  // composites: a training step's values and gradients.
  const TensorHandle x = Graph::input("x", kRowsX.shape(), DType::F32, Device::capture());
  const Graph graph =
      Graph::trace({x}, {row_ops_flat(ops::require_grad(ops::with_autodiff(x, true)))});
  const std::string bytes = onnx::to_onnx(graph);
  EXPECT_TRUE(contains(bytes, "LayerNormalization"));
  onnx::save_onnx(graph, dir() / "model.onnx");
  const Device cpu = Device::cpu();
  const TensorHandle real =
      ops::require_grad(ops::from_data(kRowsX, cpu.autodiff(), TensorKind::Float));
  expect_onnxruntime_agrees(kRowsX, ops::into_data(row_ops_flat(real)));
  // Their other variants (layer_norm without weight: a Scale of ones).
  const auto variants = [](const TensorHandle& leaf) { return flattened(row_variants_step(leaf)); };
  onnx::save_onnx(Graph::trace({x}, {variants(ops::require_grad(ops::with_autodiff(x, true)))}),
                  dir() / "model.onnx");
  expect_onnxruntime_agrees(kRowsX, ops::into_data(variants(real)));
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
  const Graph flipped = Graph::trace({x.handle()}, {x.flip({1}).handle()});
  const std::string message = error_message<InvalidArgument>([&] { onnx::to_onnx(flipped); });
  EXPECT_TRUE(contains(message, "[onnx::to_onnx] op 'flip' (node %1)")) << message;
  const Graph running_product = Graph::trace({x.handle()}, {x.cumprod(1).handle()});
  EXPECT_TRUE(contains(error_message<InvalidArgument>([&] { onnx::to_onnx(running_product); }),
                       "(ONNX has CumSum only)"));
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
