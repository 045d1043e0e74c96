// Fuzzes the ONNX model reader (src/graph/onnx/onnx_model.cpp and onnx_tensor.cpp, behind
// onnx::Model::parse and load: protobuf's parse, the opset, inputs' and outputs' types, every
// initializer's dims against its data, names defined before use and once): bad input is refused
// with an ember::Error, and a model accepted, its initializers written back as raw_data, reads
// back to the same initializers, inputs and outputs.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.h"
#include "graph/onnx/onnx_model.h"

namespace {

using ember::detail::OnnxModel;

/// model's message with each initializer's decoded values as its raw_data.
std::string rewritten(const OnnxModel& model) {
  ::onnx::ModelProto proto = model.proto;
  auto& initializers = *proto.mutable_graph()->mutable_initializer();
  for (int i = 0; i < initializers.size(); ++i) {
    ::onnx::TensorProto& tensor = initializers[i];
    const auto bytes = model.initializers[static_cast<std::size_t>(i)].data.bytes();
    const std::string name = tensor.name();
    const int32_t type = tensor.data_type();
    tensor.Clear();  // the typed fields and data_location too
    tensor.set_name(name);
    tensor.set_data_type(type);
    for (int64_t dim : model.initializers[static_cast<std::size_t>(i)].data.shape().dims())
      tensor.add_dims(dim);
    tensor.set_raw_data(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  }
  return proto.SerializeAsString();
}

bool same_values(const std::vector<ember::onnx::ValueInfo>& a,
                 const std::vector<ember::onnx::ValueInfo>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].dtype != b[i].dtype || a[i].dims != b[i].dims) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const auto model = ember::fuzz::parsed_or_refused([&] {
    return ember::detail::parse_onnx_model(ember::fuzz::input_bytes(data, size), "fuzz");
  });
  if (!model) return 0;
  const std::string bytes = rewritten(*model);
  const OnnxModel again = ember::detail::parse_onnx_model(std::as_bytes(std::span(bytes)), "again");
  ember::fuzz::require(again.opset == model->opset, "the opset reads back");
  ember::fuzz::require(same_values(again.inputs, model->inputs), "the inputs read back");
  ember::fuzz::require(same_values(again.outputs, model->outputs), "the outputs read back");
  ember::fuzz::require(again.initializers.size() == model->initializers.size(),
                       "every initializer reads back");
  for (std::size_t i = 0; i < again.initializers.size(); ++i) {
    ember::fuzz::require(again.initializers[i].name == model->initializers[i].name &&
                             again.initializers[i].data == model->initializers[i].data,
                         "an initializer reads back to the same name, dtype, shape and bytes");
  }
  return 0;
}
