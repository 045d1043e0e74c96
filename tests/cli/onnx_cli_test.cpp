// `ember onnx info` and `ember onnx run` on a small model written by ember's ONNX exporter
// (checked against onnxruntime in tests/capture): y = relu(x + c), values checked by hand.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "cli_test_util.h"
#include "ember/ember.h"
#include "ember/onnx.h"
#include "ember/record/numpy.h"
#include "support/temp_dir.h"

namespace ember::test {
namespace {

/// Writes y = relu(x + c), x f32 [2, 3], c = [[-1, 0, 1], [2, -3, 0.5]], to path.
void write_model(const std::filesystem::path& path) {
  const Device capture = Device::capture();
  const Tensor<2> x(Graph::input("x", Shape{2, 3}, DType::F32, capture));
  const Tensor<2> c = Tensor<2>::from_data(
      TensorData(std::vector<float>{-1, 0, 1, 2, -3, 0.5F}, Shape{2, 3}), capture);
  const Tensor<2> y = activation::relu(x + c);
  onnx::save_onnx(Graph::trace({x.handle()}, {y.handle()}, {"y"}), path);
}

TEST(CliOnnx, InfoListsTheSignatureTheWeightsAndTheOps) {
  const TempDir dir("ember-onnx-cli");
  write_model(dir / "model.onnx");
  const CommandRun run = ember("onnx info " + (dir / "model.onnx").string() + " --save-weights " +
                               (dir / "weights.safetensors").string());
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("opset: 17"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("  x  f32  [2, 3]"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("  y  f32  [2, 3]"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("initializers: 1 tensors, 24 bytes"), std::string::npos);
  EXPECT_NE(run.output.find("  Relu  1"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("ember imports every op of this model"), std::string::npos);
  const record::Record weights = record::load_safetensors(dir / "weights.safetensors");
  ASSERT_EQ(weights.tensors.size(), 1U);
  EXPECT_EQ(weights.tensors[0].data.to_vector<float>(),
            (std::vector<float>{-1, 0, 1, 2, -3, 0.5F}));
}

TEST(CliOnnx, RunWritesEachOutputAsNpyOnTheDeviceNamed) {
  const TempDir dir("ember-onnx-cli");
  write_model(dir / "model.onnx");
  record::save_npy(dir / "x.npy",
                   TensorData(std::vector<float>{0.5F, -1, 1, -3, 2, 0}, Shape{2, 3}));
  for (const char* device : {"ndarray", "cpu"}) {
    const CommandRun run =
        ember("onnx run " + (dir / "model.onnx").string() + " --device " + device +
              " --input x=" + (dir / "x.npy").string() + " --output " + (dir / device).string());
    ASSERT_EQ(run.status, 0) << run.output;
    const TensorData y = record::load_npy(dir / device / "y.npy");
    // relu([0.5 - 1, -1 + 0, 1 + 1, -3 + 2, 2 - 3, 0 + 0.5])
    EXPECT_EQ(y, TensorData(std::vector<float>{0, 0, 2, 0, 0, 0.5F}, Shape{2, 3})) << device;
  }
}

TEST(CliOnnx, BadModelsAndInputsAreClearErrors) {
  const TempDir dir("ember-onnx-cli");
  std::ofstream(dir / "garbage.onnx") << "\xff\xff\xff not a model";
  expect_failure(ember("onnx info " + (dir / "garbage.onnx").string()),
                 "not an ONNX model (protobuf could not parse the ModelProto)");
  write_model(dir / "model.onnx");
  const std::string run =
      "onnx run " + (dir / "model.onnx").string() + " --output " + (dir / "out").string();
  expect_failure(ember(run), "the model's input 'x' is not given");
  record::save_npy(dir / "x.npy", TensorData(std::vector<float>{1, 2}, Shape{2}));
  expect_failure(ember(run + " --input x=" + (dir / "x.npy").string()),
                 "of shape [2] does not fit the model's dims");
  expect_failure(ember(run + " --input x=" + (dir / "x.npy").string() +
                       " --input z=" + (dir / "x.npy").string()),
                 "the model has no input 'z'");
  expect_failure(ember(run + " --input x"), "--input 'x' is not name=file.npy");
}

}  // namespace
}  // namespace ember::test
