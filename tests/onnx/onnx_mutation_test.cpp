// The importers under hostile models: ONNX's node-test models (onnx_test_util.h), their bytes
// mutated, and one attribute set to a hostile value (0, -1, 2^40, INT64_MIN, INT64_MAX, NaN,
// infinity, ...), with a fixed seed, each read, built and run on ndarray with the cases' inputs.
// Each must be refused with an ember::Error or run; anything else (another exception, a crash, a
// sanitizer's report under ASan) is a defect. The model reader alone is fuzzed by
// tests/fuzz/onnx_model_fuzz.cpp; this reaches the importers, which the fuzz build cannot link.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>
#include <random>

#include "ember/onnx.h"
#include "onnx_test_util.h"

namespace ember {
namespace {

namespace fs = std::filesystem;

std::string read_bytes(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
}

/// A value hostile to an integer attribute.
int64_t hostile_int(std::mt19937_64& random) {
  const int64_t values[] = {0, -1, 1, 2, -2, int64_t{1} << 40, INT64_MAX, INT64_MIN};
  return values[random() % std::size(values)];
}

/// The model with one attribute of one node set to a hostile value (an integer, one entry of a
/// list, a float), or unchanged when the node picked has none.
std::string with_hostile_attribute(const std::string& bytes, std::mt19937_64& random) {
  ::onnx::ModelProto model;
  if (!model.ParseFromString(bytes) || model.graph().node_size() == 0) return bytes;
  ::onnx::NodeProto& node =
      *model.mutable_graph()->mutable_node(static_cast<int>(random() % model.graph().node_size()));
  if (node.attribute_size() == 0) return bytes;
  ::onnx::AttributeProto& attribute =
      *node.mutable_attribute(static_cast<int>(random() % node.attribute_size()));
  const float floats[] = {0.0F, -1.0F, 1e30F, std::numeric_limits<float>::infinity(),
                          std::numeric_limits<float>::quiet_NaN()};
  if (attribute.type() == ::onnx::AttributeProto::INT) attribute.set_i(hostile_int(random));
  if (attribute.type() == ::onnx::AttributeProto::INTS && attribute.ints_size() > 0)
    attribute.set_ints(static_cast<int>(random() % attribute.ints_size()), hostile_int(random));
  if (attribute.type() == ::onnx::AttributeProto::FLOAT) attribute.set_f(floats[random() % 5]);
  return model.SerializeAsString();
}

/// bytes with a few of them changed: set to a random value, or to one of the values that reach
/// protobuf's and ONNX's edge cases (0, 0xff, 0x7f, 0x80).
std::string mutated(std::string bytes, std::mt19937_64& random) {
  if (bytes.empty()) return bytes;
  const int count = 1 + static_cast<int>(random() % 4);
  for (int i = 0; i < count; ++i) {
    const std::size_t at = random() % bytes.size();
    const char special[] = {'\0', '\xff', '\x7f', '\x80'};
    bytes[at] = random() % 2 == 0 ? static_cast<char>(random()) : special[random() % 4];
  }
  return bytes;
}

struct Outcomes {
  int ran = 0;
  int refused = 0;
};

/// Reads, builds and runs one model; fails the test on anything but an ember::Error.
void read_and_run(const std::string& bytes, const std::vector<TensorData>& inputs,
                  const std::string& name, Outcomes& outcomes) {
  try {
    const onnx::Model model = onnx::Model::parse(std::as_bytes(std::span(bytes)));
    model.run(Device::ndarray(), inputs);
    ++outcomes.ran;
  } catch (const Error&) {  // refused: what a hostile model should get
    ++outcomes.refused;
  } catch (const std::exception& e) {
    ADD_FAILURE() << name << ": " << typeid(e).name() << ": " << e.what();
  }
}

/// An integer from the environment, or fallback.
uint64_t env_or(const char* name, uint64_t fallback) {
  const char* value = std::getenv(name);
  return value != nullptr ? std::strtoull(value, nullptr, 10) : fallback;
}

// Two mutations of each model by default; EMBER_ONNX_MUTATIONS and EMBER_ONNX_MUTATION_SEED
// search longer by hand.
TEST(OnnxMutation, CorruptedNodeTestModelsAreRefusedOrRun) {
  const fs::path dir = test::node_tests_dir();
  if (dir.empty()) GTEST_SKIP() << "no onnx venv: run tests/onnx/python/install-onnx";
  std::mt19937_64 random(env_or("EMBER_ONNX_MUTATION_SEED", 19));
  const uint64_t per_model = env_or("EMBER_ONNX_MUTATIONS", 2);
  Outcomes bytes_changed;
  Outcomes attribute_changed;
  std::vector<fs::path> cases;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    if (entry.is_directory()) cases.push_back(entry.path());
  }
  std::sort(cases.begin(), cases.end());
  for (const fs::path& case_dir : cases) {
    std::vector<TensorData> inputs;
    try {
      for (int j = 0; fs::exists(case_dir / ("test_data_set_0/input_" + std::to_string(j) + ".pb"));
           ++j)
        inputs.push_back(
            onnx::load_tensor(case_dir / ("test_data_set_0/input_" + std::to_string(j) + ".pb")));
    } catch (const Error&) {
      continue;  // inputs ember has no dtype for
    }
    const std::string bytes = read_bytes(case_dir / "model.onnx");
    for (uint64_t k = 0; k < per_model; ++k) {
      read_and_run(mutated(bytes, random), inputs, case_dir.filename().string(), bytes_changed);
      read_and_run(with_hostile_attribute(bytes, random), inputs, case_dir.filename().string(),
                   attribute_changed);
    }
  }
  std::cout << "bytes changed: " << bytes_changed.ran << " ran, " << bytes_changed.refused
            << " refused; an attribute changed: " << attribute_changed.ran << " ran, "
            << attribute_changed.refused << " refused\n";
}

}  // namespace
}  // namespace ember
