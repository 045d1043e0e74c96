// record::save / record::load on toy modules built from Params and Buffers directly: all or
// nothing, names and shapes checked, kinds matched, values kept on the params' devices.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "ember/nn/module.h"
#include "ember/record/module_record.h"
#include "record_test_util.h"

namespace ember::record {
namespace {

struct Block {
  nn::Param<2> weight;
  std::optional<nn::Param<1>> bias;
  nn::Buffer<1> running;
  nn::Buffer<1, Int> steps;
  EMBER_MODULE(weight, bias, running, steps)
};

struct Net {
  Block first;
  std::vector<Block> layers;
  EMBER_MODULE(first, layers)
};

struct Empty {
  nn::Param<1> weight;
  EMBER_MODULE(weight)
};

/// A Block whose values all derive from seed, so that two seeds give two distinct blocks.
Block make_block(double seed, const Device& device) {
  return Block{
      nn::Param<2>(Tensor<2>::random({2, 3}, Distribution::normal(seed, 1.0), device)),
      nn::Param<1>(Tensor<1>::full({2}, seed + 0.5, device)),
      nn::Buffer<1>(Tensor<1>::full({3}, seed * 2.0, device)),
      nn::Buffer<1, Int>(Tensor<1, Int>::full({1}, static_cast<int64_t>(seed * 10.0), device))};
}

Net make_net(double seed, const Device& device = Device::ndarray()) {
  return Net{make_block(seed, device),
             {make_block(seed + 1, device), make_block(seed + 2, device)}};
}

/// Every value of module's state, by name.
template <nn::Module M>
std::map<std::string, TensorData> values_of(const M& module) {
  std::map<std::string, TensorData> values;
  for (const nn::NamedTensor& t : nn::state(module))
    values.emplace(t.name, ops::into_data(t.tensor));
  return values;
}

std::vector<std::string> names_of(const Record& record) {
  std::vector<std::string> names;
  for (const NamedData& tensor : record.tensors)
    names.push_back(tensor.name);
  std::sort(names.begin(), names.end());
  return names;
}

/// The message of loading record into net, which must leave net unchanged.
std::string failed_load(Net& net, const Record& record, LoadOptions options = {}) {
  const auto before = values_of(net);
  const std::string message =
      test::invalid_argument_message([&] { load_record(net, record, options, "test.st"); });
  test::expect_mentions(message, {"[record::load] test.st: "});
  EXPECT_EQ(values_of(net), before) << "a failed load changed the model";
  return message;
}

/// record with the tensor called name replaced by data.
Record with_tensor(Record record, const std::string& name, TensorData data) {
  for (NamedData& tensor : record.tensors) {
    if (tensor.name == name) tensor.data = std::move(data);
  }
  return record;
}

TEST(ModuleRecord, SaveThenLoadRestoresEveryValueBitForBit) {
  test::TempDir dir;
  const Net saved = make_net(1.0);
  save(saved, dir / "net.safetensors", {{"epoch", "3"}});
  Net restored = make_net(7.0);
  ASSERT_NE(values_of(restored), values_of(saved));
  load(restored, dir / "net.safetensors");
  EXPECT_EQ(values_of(restored), values_of(saved));
}

TEST(ModuleRecord, TheFileHoldsTheDottedStateAndTheMetadata) {
  test::TempDir dir;
  save(make_net(1.0), dir / "net.safetensors", {{"epoch", "3"}});
  const Record record = load_safetensors(dir / "net.safetensors");
  EXPECT_EQ(names_of(record),
            (std::vector<std::string>{"first.bias", "first.running", "first.steps", "first.weight",
                                      "layers.0.bias", "layers.0.running", "layers.0.steps",
                                      "layers.0.weight", "layers.1.bias", "layers.1.running",
                                      "layers.1.steps", "layers.1.weight"}));
  EXPECT_EQ(record.metadata, (std::map<std::string, std::string>{{"epoch", "3"}}));
  // seed 1: first.steps = 10, first.bias = 1.5.
  EXPECT_EQ(record.find("first.steps")->to_vector<int64_t>(), std::vector<int64_t>{10});
  EXPECT_EQ(record.find("first.bias")->to_vector<double>(), std::vector<double>(2, 1.5));
}

TEST(ModuleRecord, MissingTensorsFailAndLeaveTheModelUnchanged) {
  Record record = to_record(make_net(1.0));
  std::erase_if(record.tensors, [](const NamedData& t) {
    return t.name == "layers.1.weight" || t.name == "first.running";
  });
  Net net = make_net(5.0);
  test::expect_mentions(failed_load(net, record),
                        {"no tensor for 'first.running', 'layers.1.weight'"});
}

TEST(ModuleRecord, ExtraTensorsFailUnlessAllowed) {
  const Net source = make_net(1.0);
  Record record = to_record(source);
  record.tensors.push_back({"head.weight", TensorData(std::vector<float>{1}, Shape{1})});
  Net net = make_net(5.0);
  test::expect_mentions(failed_load(net, record),
                        {"no param or buffer called 'head.weight'", "allow_extra"});
  load_record(net, record, LoadOptions{.allow_extra = true});
  EXPECT_EQ(values_of(net), values_of(source));
}

TEST(ModuleRecord, AShapeMismatchFailsNamingTheTensor) {
  // The last tensor of the walk is wrong: the others must not have been assigned either.
  const Record record = with_tensor(to_record(make_net(1.0)), "layers.1.steps",
                                    TensorData(std::vector<int64_t>{1, 2}, Shape{2}));
  Net net = make_net(5.0);
  test::expect_mentions(failed_load(net, record),
                        {"tensor 'layers.1.steps' has shape [2]", "buffer has shape [1]"});
}

TEST(ModuleRecord, KindsMustMatch) {
  Net net = make_net(5.0);
  const Record float_into_int = with_tensor(to_record(make_net(1.0)), "first.steps",
                                            TensorData(std::vector<float>{1}, Shape{1}));
  test::expect_mentions(
      failed_load(net, float_into_int),
      {"tensor 'first.steps' is f32 (Float)", "buffer is i64 (Int)", "the kinds must match"});
  const Record int_into_float = with_tensor(to_record(make_net(1.0)), "layers.0.bias",
                                            TensorData(std::vector<int32_t>{1, 2}, Shape{2}));
  test::expect_mentions(failed_load(net, int_into_float),
                        {"tensor 'layers.0.bias' is i32 (Int)", "param is f32 (Float)"});
  const Record bool_into_float = with_tensor(to_record(make_net(1.0)), "first.running",
                                             TensorData(std::vector<bool>{1, 0, 1}, Shape{3}));
  test::expect_mentions(failed_load(net, bool_into_float),
                        {"tensor 'first.running' is bool (Bool)", "buffer is f32"});
}

TEST(ModuleRecord, FloatAndIntDtypesConvertToTheModels) {
  Net net = make_net(5.0);
  const Record record =
      with_tensor(with_tensor(to_record(make_net(1.0)), "first.bias",
                              TensorData(std::vector<double>{0.1, -2.0}, Shape{2})),
                  "first.steps", TensorData(std::vector<int32_t>{-4}, Shape{1}));
  load_record(net, record);
  const Tensor<1> bias = net.first.bias->value();
  EXPECT_EQ(bias.dtype(), DType::F32);
  EXPECT_EQ(bias.into_data().to_vector<float>(), (std::vector<float>{0.1f, -2.0f}));
  EXPECT_EQ(net.first.steps.value().dtype(), DType::I64);
  EXPECT_EQ(net.first.steps.value().into_data().to_vector<int64_t>(), std::vector<int64_t>{-4});
}

TEST(ModuleRecord, LoadedParamsStayOnTheirDeviceAndTrainable) {
  const Device device = Device::ndarray().autodiff();
  Net net = make_net(5.0, device);
  nn::freeze(net, "layers.0");
  const Net source = make_net(1.0);  // on a plain device
  load_record(net, to_record(source));
  EXPECT_EQ(values_of(net), values_of(source));
  for (const nn::NamedTensor& p : nn::named_parameters(net)) {
    EXPECT_TRUE(p.tensor.device().is_autodiff()) << p.name;
    EXPECT_EQ(ops::is_require_grad(p.tensor), !p.name.starts_with("layers.0")) << p.name;
  }
  for (const nn::NamedTensor& b : nn::named_buffers(net))
    EXPECT_FALSE(ops::is_require_grad(b.tensor)) << b.name;
  // sum(bias) has gradient 1 for each element of the loaded bias.
  const Gradients grads = net.first.bias->value().sum().backward();
  ASSERT_TRUE(net.first.bias->grad(grads).has_value());
  EXPECT_EQ(net.first.bias->grad(grads)->into_data().to_vector<double>(),
            std::vector<double>(2, 1.0));
}

TEST(ModuleRecord, DuplicateNamesInARecordFail) {
  Record record = to_record(make_net(1.0));
  record.tensors.push_back(record.tensors.front());
  Net net = make_net(5.0);
  test::expect_mentions(failed_load(net, record), {"two tensors called 'first.weight'"});
}

TEST(ModuleRecord, AParamWithoutAValueCannotBeLoaded) {
  Empty empty;
  const Record record{{{"weight", TensorData(std::vector<float>{1}, Shape{1})}}, {}};
  test::expect_mentions(test::invalid_argument_message([&] { load_record(empty, record); }),
                        {"[record::load] record: ", "param 'weight' has no value"});
}

TEST(ModuleRecord, LoadingAMissingFileNamesIt) {
  Net net = make_net(5.0);
  test::expect_mentions(test::invalid_argument_message([&] { load(net, "/nonexistent/x.st"); }),
                        {"[load_safetensors] /nonexistent/x.st: cannot open"});
}

}  // namespace
}  // namespace ember::record
