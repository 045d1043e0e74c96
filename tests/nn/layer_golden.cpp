#include "layer_golden.h"
#include "support/source_dir.h"
#include "support/suite_device.h"

#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>

namespace ember::nn::layer_golden {
namespace {

json load_file() {
  const std::string path = ember::test::source_dir() + "/tests/nn/layers_golden.json";
  std::ifstream file(path);
  if (!file) throw std::runtime_error("cannot open " + path);
  return json::parse(file).at("cases");
}

/// Assigns by name, remembering the names it met.
class StateLoader : public ModuleVisitor {
 public:
  StateLoader(const json& state, const Device& device) : state_(state), device_(device) {}
  void param(const std::string& path, ParamBase& param) override {
    if (const json* t = entry(path)) param.assign(tensor_of(*t, device_));
  }
  void buffer(const std::string& path, BufferBase& buffer) override {
    if (const json* t = entry(path)) buffer.assign(tensor_of(*t, device_));
  }
  std::set<std::string> names;

 private:
  const json* entry(const std::string& path) {
    names.insert(path);
    return state_.contains(path) ? &state_.at(path) : nullptr;
  }
  const json& state_;
  Device device_;
};

const NamedTensor* find(const std::vector<NamedTensor>& tensors, const std::string& name) {
  for (const NamedTensor& t : tensors) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

}  // namespace

Device golden_device() {
  return ember::test::suite_device().autodiff();
}

const json& layer_case(const std::string& name) {
  static const json cases = load_file();
  if (!cases.contains(name)) throw std::runtime_error("no golden case " + name);
  return cases.at(name);
}

TensorHandle tensor_of(const json& t, const Device& device) {
  const Shape shape(t.at("shape").get<std::vector<int64_t>>());
  const std::string dtype = t.at("dtype").get<std::string>();
  const TensorCreationOptions options(device);
  if (dtype == "i64") {
    return ops::from_data(TensorData(t.at("data").get<std::vector<int64_t>>(), shape),
                          options.with_dtype(DType::I64), TensorKind::Int);
  }
  return ops::from_data(TensorData(t.at("data").get<std::vector<double>>(), shape),
                        options.with_dtype(DType::F64), TensorKind::Float);
}

void expect_near(const TensorHandle& actual, const json& expected, const std::string& what,
                 double tol) {
  const TensorData data = ops::into_data(actual);
  ASSERT_EQ(data.shape().dims(), expected.at("shape").get<std::vector<int64_t>>()) << what;
  const std::vector<double> got = data.to_vector<double>();
  const std::vector<double> want = expected.at("data").get<std::vector<double>>();
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], tol * (1.0 + std::abs(want[i]))) << what << ", element " << i;
}

void load_state(const Walk& walk, const json& state, const Device& device) {
  StateLoader loader(state, device);
  walk(loader);
  std::set<std::string> expected;
  for (const auto& [name, t] : state.items())
    expected.insert(name);
  EXPECT_EQ(loader.names, expected) << "ember's state names differ from PyTorch's";
}

void expect_state(const std::vector<NamedTensor>& actual, const json& expected) {
  for (const auto& [name, t] : expected.items()) {
    const NamedTensor* found = find(actual, name);
    ASSERT_NE(found, nullptr) << "no state tensor " << name;
    expect_near(found->tensor, t, "state " + name);
  }
}

void expect_param_grads(const std::vector<NamedTensor>& params, const Gradients& grads,
                        const json& expected) {
  for (const auto& [name, t] : expected.items()) {
    const NamedTensor* found = find(params, name);
    ASSERT_NE(found, nullptr) << "no param " << name;
    const std::optional<TensorHandle> grad = grads.get(found->tensor);
    ASSERT_TRUE(grad.has_value()) << "no gradient for " << name;
    expect_near(*grad, t, "gradient of " + name);
  }
}

void expect_invalid(const std::function<void()>& f, const std::vector<std::string>& parts) {
  try {
    f();
    ADD_FAILURE() << "expected InvalidArgument containing " << parts.front();
  } catch (const InvalidArgument& e) {
    for (const std::string& part : parts)
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

}  // namespace ember::nn::layer_golden
