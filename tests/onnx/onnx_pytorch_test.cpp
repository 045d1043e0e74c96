// Models exported by PyTorch's torch.onnx.export (tests/onnx/python/export_torch_models.py, run
// with the peer PyTorch venv and the packages install-torch-onnx adds; skipped without them):
// a small CNN (at its traced batch, and with a symbolic batch run at another), and a transformer
// encoder layer, each imported by ember, run on cpu and ndarray and compared with PyTorch's
// outputs on the same inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>

#include "ember/onnx.h"
#include "ember/record/numpy.h"
#include "onnx_test_util.h"

namespace ember {
namespace {

namespace fs = std::filesystem;

/// The largest |a - b| over two tensors of one shape.
double max_difference(const TensorData& a, const TensorData& b) {
  const std::vector<double> x = a.to_vector<double>();
  const std::vector<double> y = b.to_vector<double>();
  double worst = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    worst = std::max(worst, std::abs(x[i] - y[i]));
  return worst;
}

class OnnxFromPytorch : public ::testing::Test {
 protected:
  /// Exports the models into the build tree once (again when the script changes: a copy of
  /// it beside the models says which version wrote them).
  static void SetUpTestSuite() {
    const std::string python =
        test::venv_python("EMBER_PEER_VENV", "/opt/ember-peer-torch", "torch, onnxscript");
    if (python.empty()) return;
    dir_ = fs::path(EMBER_BINARY_DIR) / "onnx-pytorch-models";
    const fs::path script =
        fs::path(test::source_dir()) / "tests/onnx/python/export_torch_models.py";
    const fs::path stamp = dir_ / "export_torch_models.py";
    exported_ = fs::exists(stamp) && test::read_text(stamp) == test::read_text(script);
    if (exported_) return;
    const std::string command =
        python + " " + script.string() + " " + dir_.string() + " > /dev/null 2>&1";
    exported_ = std::system(command.c_str()) == 0;
    if (exported_) fs::copy_file(script, stamp, fs::copy_options::overwrite_existing);
  }

  void SetUp() override {
    if (dir_.empty())
      GTEST_SKIP() << "no PyTorch venv with onnxscript: run bench/install-peer and "
                      "tests/onnx/python/install-torch-onnx";
    ASSERT_TRUE(exported_) << "export_torch_models.py failed";
  }

  /// Runs model name on cpu and ndarray: within 1e-5 of PyTorch's output.
  static void expect_pytorch_outputs(const std::string& name) {
    const fs::path& dir = dir_;
    const onnx::Model model = onnx::Model::load(dir / (name + ".onnx"));
    const TensorData input = record::load_npy(dir / (name + "_input.npy"));
    const TensorData expected = record::load_npy(dir / (name + "_output.npy"));
    for (const Device& device : {Device::cpu(), Device::ndarray()}) {
      const std::vector<TensorData> outputs = model.run(device, {input});
      ASSERT_EQ(outputs.size(), 1U);
      ASSERT_EQ(outputs[0].shape(), expected.shape()) << name << " on " << device;
      const double difference = max_difference(outputs[0], expected);
      std::cout << name << " on " << device << ": max |ember - PyTorch| = " << difference << "\n";
      EXPECT_LE(difference, 1e-5) << name << " on " << device;
    }
  }

  static inline fs::path dir_;
  static inline bool exported_ = false;
};

TEST_F(OnnxFromPytorch, SmallCnnMatchesPytorch) {
  expect_pytorch_outputs("cnn");
}

TEST_F(OnnxFromPytorch, SmallCnnWithASymbolicBatchRunsAtAnotherBatch) {
  expect_pytorch_outputs("cnn_dynamic");
}

TEST_F(OnnxFromPytorch, TransformerEncoderLayerMatchesPytorch) {
  expect_pytorch_outputs("encoder");
}

}  // namespace
}  // namespace ember
