// OnnxNode: an importer's view of its node; attributes read with their types checked.
#include "graph/onnx/onnx_node.h"

#include "ember/tensor_ops.h"
#include "graph/onnx/onnx_model.h"

namespace ember::detail {

using ::onnx::AttributeProto;

const OnnxValue& OnnxNode::input(std::size_t i) const {
  if (!has(i)) fail("input ", i, " is required and not given");
  return *inputs_[i];
}

TensorData OnnxNode::known(std::size_t i, std::string_view what) const {
  input(i);  // given
  if (!known_[i]) {
    fail("input ", i, " (", what, ", '", proto_.input(static_cast<int>(i)),
         "') must be known when the graph is built: computed from initializers, Constant nodes ",
         "and shapes (and integer or rank-0 inputs of known values), or an input of known values");
  }
  return ops::into_data(*known_[i]);
}

std::vector<int64_t> OnnxNode::known_ints(std::size_t i, std::string_view what) const {
  const TensorData data = known(i, what);
  if (kind_of(data.dtype()) != TensorKind::Int)
    fail("input ", i, " (", what, ") must be integers, got ", data.dtype());
  return data.to_vector<int64_t>();
}

double OnnxNode::known_scalar(std::size_t i, std::string_view what) const {
  const TensorData data = known(i, what);
  if (data.num_elements() != 1)
    fail("input ", i, " (", what, ") holds ", data.num_elements(), " values, not 1");
  return data.to_vector<double>()[0];
}

const ::onnx::GraphProto& OnnxNode::attr_graph(std::string_view name) const {
  if (!find(name)) fail("attribute '", name, "' (a graph) is required");
  return typed(name, AttributeProto::GRAPH).g();
}

std::vector<OnnxValue> OnnxNode::run_graph(std::string_view name,
                                           const std::vector<OnnxValue>& inputs) const {
  const ::onnx::GraphProto& graph = attr_graph(name);
  if (static_cast<std::size_t>(graph.input_size()) != inputs.size())
    fail("graph '", name, "' takes ", graph.input_size(), " inputs, the op gives it ",
         inputs.size());
  if (!runner_) fail("graph '", name, "' cannot be built here");
  return runner_(graph, inputs);
}

const AttributeProto* OnnxNode::find(std::string_view name) const {
  for (const AttributeProto& attribute : proto_.attribute()) {
    if (attribute.name() == name) return &attribute;
  }
  return nullptr;
}

const AttributeProto& OnnxNode::typed(std::string_view name,
                                      AttributeProto::AttributeType type) const {
  const AttributeProto& attribute = *find(name);
  if (attribute.type() != type) {
    fail("attribute '", name, "' is of type ", AttributeProto::AttributeType_Name(attribute.type()),
         ", expected ", AttributeProto::AttributeType_Name(type));
  }
  return attribute;
}

std::optional<int64_t> OnnxNode::attr_int(std::string_view name) const {
  if (!find(name)) return std::nullopt;
  return typed(name, AttributeProto::INT).i();
}

int64_t OnnxNode::attr_int(std::string_view name, int64_t fallback) const {
  return attr_int(name).value_or(fallback);
}

float OnnxNode::attr_float(std::string_view name, float fallback) const {
  if (!find(name)) return fallback;
  return typed(name, AttributeProto::FLOAT).f();
}

std::optional<std::vector<int64_t>> OnnxNode::attr_ints(std::string_view name) const {
  if (!find(name)) return std::nullopt;
  const auto& ints = typed(name, AttributeProto::INTS).ints();
  return std::vector<int64_t>(ints.begin(), ints.end());
}

std::optional<std::vector<float>> OnnxNode::attr_floats(std::string_view name) const {
  if (!find(name)) return std::nullopt;
  const auto& floats = typed(name, AttributeProto::FLOATS).floats();
  return std::vector<float>(floats.begin(), floats.end());
}

std::string OnnxNode::attr_string(std::string_view name, std::string_view fallback) const {
  if (!find(name)) return std::string(fallback);
  return typed(name, AttributeProto::STRING).s();
}

std::optional<TensorData> OnnxNode::attr_tensor(std::string_view name) const {
  if (!find(name)) return std::nullopt;
  return decode_tensor(typed(name, AttributeProto::TENSOR).t(),
                       label_ + " attribute '" + std::string(name) + "'");
}

}  // namespace ember::detail

namespace ember::detail {

const OnnxImporters& onnx_importers() {
  static const OnnxImporters table = [] {
    OnnxImporters importers;
    add_elementwise_importers(importers);
    add_layout_importers(importers);
    add_pad_importers(importers);
    add_gather_importers(importers);
    add_constant_importers(importers);
    add_reduce_importers(importers);
    add_nn_importers(importers);
    add_index_importers(importers);
    add_loss_importers(importers);
    add_resize_importers(importers);
    add_attention_importers(importers);
    add_bitshift_importers(importers);
    add_quantize_importers(importers);
    add_window_importers(importers);
    add_nd_importers(importers);
    add_einsum_importers(importers);
    add_dft_importers(importers);
    add_grid_sample_importers(importers);
    add_unfold_importers(importers);
    add_linear_attention_importers(importers);
    add_recurrent_importers(importers);
    add_control_importers(importers);
    add_bitcast_importers(importers);
    add_arc_importers(importers);
    add_unique_importers(importers);
    add_roi_align_importers(importers);
    add_random_importers(importers);
    add_image_importers(importers);
    return importers;
  }();
  return table;
}

}  // namespace ember::detail
