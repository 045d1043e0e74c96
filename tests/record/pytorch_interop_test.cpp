// PyTorch state_dicts saved as safetensors (fixtures/, by generate.py) load into the same
// architectures built with ember, which then reproduce PyTorch's outputs. The BatchNorm model
// also checks buffers and PyTorch's 0-dim int64 num_batches_tracked.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

#include "ember/ember.h"
#include "ember/nn/linear.h"
#include "ember/record/module_record.h"
#include "record_test_util.h"

namespace ember::record {
namespace {

/// generate.py's Mlp: fc2(relu(fc1(x))), Linear(3, 4) then Linear(4, 2).
struct Mlp {
  nn::Linear fc1, fc2;
  EMBER_MODULE(fc1, fc2)
  Tensor<2> forward(const Tensor<2>& x) const {
    return fc2.forward(activation::relu(fc1.forward(x)));
  }
};

/// torch.nn.BatchNorm1d's state, with its names (until nn::BatchNorm exists).
struct BatchNorm1dState {
  nn::Param<1> weight, bias;
  nn::Buffer<1> running_mean, running_var;
  nn::Buffer<1, Int> num_batches_tracked;
  EMBER_MODULE(weight, bias, running_mean, running_var, num_batches_tracked)
  /// Inference: normalized with the running statistics (eps 1e-5, PyTorch's default).
  Tensor<2> forward(const Tensor<2>& x) const {
    return module::batch_norm(x, *running_mean, *running_var, *weight, *bias, false, 0.1, 1e-5)
        .output;
  }
};

/// generate.py's BatchNormNet: fc2(relu(bn(fc1(x)))).
struct BatchNormNet {
  nn::Linear fc1;
  BatchNorm1dState bn;
  nn::Linear fc2;
  EMBER_MODULE(fc1, bn, fc2)
  Tensor<2> forward(const Tensor<2>& x) const {
    return fc2.forward(activation::relu(bn.forward(fc1.forward(x))));
  }
};

Mlp make_mlp(const Device& device) {
  return Mlp{nn::LinearConfig{3, 4}.init(device), nn::LinearConfig{4, 2}.init(device)};
}

BatchNormNet make_batchnorm_net(const Device& device) {
  BatchNorm1dState bn{
      nn::Param<1>(Tensor<1>::ones({4}, device)), nn::Param<1>(Tensor<1>::zeros({4}, device)),
      nn::Buffer<1>(Tensor<1>::zeros({4}, device)), nn::Buffer<1>(Tensor<1>::ones({4}, device)),
      nn::Buffer<1, Int>(Tensor<1, Int>::zeros({1}, device))};
  return BatchNormNet{nn::LinearConfig{3, 4}.init(device), bn, nn::LinearConfig{4, 2}.init(device)};
}

/// expected.json's entry for model: its input and PyTorch's output.
nlohmann::json expected_for(const std::string& model) {
  std::ifstream file(test::fixture("expected.json"));
  return nlohmann::json::parse(file)[model];
}

Tensor<2> matrix(const nlohmann::json& rows, const Device& device) {
  std::vector<double> values;
  for (const auto& row : rows)
    for (double v : row)
      values.push_back(v);
  const auto count = static_cast<int64_t>(rows.size());
  return Tensor<2>::from_data(
      TensorData(values, Shape{count, static_cast<int64_t>(values.size()) / count}, DType::F32),
      device);
}

/// model's output on expected's input equals PyTorch's, to f32 accuracy.
template <typename M>
void expect_pytorch_output(const M& model, const nlohmann::json& expected, const Device& device) {
  const TensorData got = model.forward(matrix(expected["input"], device)).into_data();
  const TensorData want = matrix(expected["output"], device).into_data();
  std::string why;
  EXPECT_TRUE(got.approx_equal(want, Tolerance{1e-5, 1e-6}, &why)) << why;
}

TEST(PyTorchInterop, AnMlpStateDictReproducesPyTorchsOutput) {
  const Device device = Device::ndarray();
  Mlp mlp = make_mlp(device);
  load(mlp, test::fixture("mlp.safetensors"));
  expect_pytorch_output(mlp, expected_for("mlp"), device);
}

TEST(PyTorchInterop, ABatchNormStateDictWithBuffersReproducesPyTorchsOutput) {
  const Device device = Device::ndarray().autodiff();
  BatchNormNet net = make_batchnorm_net(device);
  load(net, test::fixture("batchnorm.safetensors"));
  // generate.py ran three training batches; the 0-dim int64 counter loads as shape [1].
  EXPECT_EQ(net.bn.num_batches_tracked.value().into_data().to_vector<int64_t>(),
            std::vector<int64_t>{3});
  EXPECT_TRUE(ops::is_require_grad(net.bn.weight.handle()));
  expect_pytorch_output(net, expected_for("batchnorm"), device);
}

TEST(PyTorchInterop, ADifferentArchitectureIsRefusedByName) {
  BatchNormNet net = make_batchnorm_net(Device::ndarray());
  test::expect_mentions(
      test::invalid_argument_message([&] { load(net, test::fixture("mlp.safetensors")); }),
      {"[record::load] ", "mlp.safetensors", "no tensor for 'bn.weight', 'bn.bias'"});
}

/// Saving the loaded model and loading it again gives the same model; with
/// EMBER_RECORD_EXPORT_DIR set, the file is also left there for `generate.py check`, which loads
/// it into PyTorch.
TEST(PyTorchInterop, AModelSavedByEmberLoadsBack) {
  const Device device = Device::ndarray();
  BatchNormNet net = make_batchnorm_net(device);
  load(net, test::fixture("batchnorm.safetensors"));
  test::TempDir dir;
  const char* export_dir = std::getenv("EMBER_RECORD_EXPORT_DIR");
  const std::filesystem::path path =
      std::filesystem::path(export_dir ? export_dir : dir.path().string()) /
      "ember_batchnorm.safetensors";
  save(net, path);
  BatchNormNet again = make_batchnorm_net(device);
  load(again, path);
  const std::vector<nn::NamedTensor> saved = nn::state(net);
  const std::vector<nn::NamedTensor> loaded = nn::state(again);
  ASSERT_EQ(saved.size(), loaded.size());
  for (std::size_t i = 0; i < saved.size(); ++i)
    EXPECT_EQ(ops::into_data(saved[i].tensor), ops::into_data(loaded[i].tensor)) << saved[i].name;
  expect_pytorch_output(again, expected_for("batchnorm"), device);
}

}  // namespace
}  // namespace ember::record
