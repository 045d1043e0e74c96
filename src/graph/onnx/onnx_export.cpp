// ONNX export: the graph's placeholders, constants and outputs, and the value names that tie
// the nodes onnx_ops.cpp writes together.
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "ember/error.h"
#include "ember/onnx.h"
#include "ember/record/file_io.h"
#include "graph/expand.h"
#include "graph/onnx/onnx_writer.h"
#include "ir/rules.h"

namespace ember {
namespace detail {

OnnxWriter::OnnxWriter(::onnx::GraphProto& graph, const onnx::ExportOptions& options,
                       const GraphImpl& source)
    : graph_(graph), options_(options) {
  if (options.dynamic_batch) batched_ = batched_values(source);
}

std::string OnnxWriter::fresh(std::string_view base) {
  return std::string(base) + "_" + std::to_string(next_++);
}

std::string OnnxWriter::initializer(const TensorData& data) {
  ::onnx::TensorProto& tensor = *graph_.add_initializer();
  tensor.set_name(fresh("const"));
  tensor.set_data_type(onnx_type(data.dtype()));
  for (int64_t dim : data.shape().dims())
    tensor.add_dims(dim);
  const auto bytes = data.bytes();
  tensor.set_raw_data(bytes.data(), bytes.size());  // little-endian, as ONNX's raw_data is
  return tensor.name();
}

std::string OnnxWriter::int64s(std::span<const int64_t> values) {
  return initializer(TensorData(std::vector<int64_t>(values.begin(), values.end()),
                                Shape{static_cast<int64_t>(values.size())}));
}

std::string OnnxWriter::scalar(const Scalar& value, DType dtype) {
  if (kind_of(dtype) == TensorKind::Float)
    return initializer(TensorData(std::vector<double>{value.as_double()}, Shape{}, dtype));
  return initializer(TensorData(
      std::vector<int64_t>{value.kind == Scalar::Kind::Float ? static_cast<int64_t>(value.f)
                                                             : value.i},
      Shape{}, dtype));
}

::onnx::NodeProto& OnnxWriter::node(std::string_view op_type, std::vector<std::string> inputs,
                                    std::vector<std::string> outputs) {
  ::onnx::NodeProto& node = *graph_.add_node();
  node.set_op_type(std::string(op_type));
  node.set_name(fresh(op_type));
  for (std::string& input : inputs)
    node.add_input(std::move(input));
  for (std::string& output : outputs)
    node.add_output(std::move(output));
  return node;
}

namespace {

::onnx::AttributeProto& add_attribute(::onnx::NodeProto& node, std::string_view name,
                                      ::onnx::AttributeProto::AttributeType type) {
  ::onnx::AttributeProto& attribute = *node.add_attribute();
  attribute.set_name(std::string(name));
  attribute.set_type(type);
  return attribute;
}

}  // namespace

void set_int(::onnx::NodeProto& node, std::string_view name, int64_t value) {
  add_attribute(node, name, ::onnx::AttributeProto::INT).set_i(value);
}

void set_float(::onnx::NodeProto& node, std::string_view name, double value) {
  add_attribute(node, name, ::onnx::AttributeProto::FLOAT).set_f(static_cast<float>(value));
}

void set_ints(::onnx::NodeProto& node, std::string_view name, std::span<const int64_t> values) {
  ::onnx::AttributeProto& attribute = add_attribute(node, name, ::onnx::AttributeProto::INTS);
  for (int64_t value : values)
    attribute.add_ints(value);
}

void set_string(::onnx::NodeProto& node, std::string_view name, std::string_view value) {
  add_attribute(node, name, ::onnx::AttributeProto::STRING).set_s(std::string(value));
}

namespace {

/// A graph input or output's type: dtype and shape, dim 0 symbolic when batched.
void set_value_info(::onnx::ValueInfoProto& info, std::string name, const ir::TensorMeta& meta,
                    bool batched) {
  info.set_name(std::move(name));
  ::onnx::TypeProto_Tensor& tensor = *info.mutable_type()->mutable_tensor_type();
  tensor.set_elem_type(onnx_type(meta.dtype));
  ::onnx::TensorShapeProto& shape = *tensor.mutable_shape();
  const auto dims = meta.shape.dims();
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (i == 0 && batched) {
      shape.add_dim()->set_dim_param("batch");
    } else {
      shape.add_dim()->set_dim_value(dims[i]);
    }
  }
}

/// The IR version a model of opset needs (onnx/defs: opset 17-18 IR 8, 19-20 IR 9, 21 IR 10).
int64_t ir_version_of(int64_t opset) {
  if (opset < 17 || opset > 21) {
    throw InvalidArgument(ir::rules::concat("[onnx::to_onnx] opset ", opset,
                                            " is not one this exporter writes (17 to 21)"));
  }
  return opset <= 18 ? 8 : opset <= 20 ? 9 : 10;
}

/// Whether each output of each node is read by a node or a graph output.
std::vector<std::vector<bool>> uses_of(const GraphImpl& graph) {
  std::vector<std::vector<bool>> used(graph.nodes.size());
  for (std::size_t i = 0; i < graph.nodes.size(); ++i)
    used[i].assign(graph.nodes[i].outputs.size(), false);
  for (const GraphNode& node : graph.nodes) {
    for (const ValueRef& input : node.inputs)
      used[input.node][input.output] = true;
  }
  for (const GraphOutput& output : graph.outputs)
    used[output.value.node][output.value.output] = true;
  return used;
}

void write_graph(const GraphImpl& graph, OnnxWriter& writer, ::onnx::GraphProto& proto) {
  const std::vector<std::vector<bool>> used = uses_of(graph);
  std::vector<std::vector<std::string>> names(graph.nodes.size());
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    const GraphNode& node = graph.nodes[i];
    switch (node.kind) {
      case GraphNode::Kind::Input:
        set_value_info(*proto.add_input(), node.name, node.outputs[0], writer.batched({i, 0}));
        names[i] = {node.name};
        break;
      case GraphNode::Kind::Constant:
        names[i] = {writer.initializer(*node.data)};
        break;
      case GraphNode::Kind::Op: {
        OnnxOpNames op_names;
        for (const ValueRef& input : node.inputs)
          op_names.inputs.push_back(names[input.node][input.output]);
        for (std::size_t k = 0; k < node.outputs.size(); ++k)
          op_names.outputs.push_back(writer.fresh("v" + std::to_string(i)));
        write_onnx_op(writer, graph, i, op_names, used[i]);
        names[i] = std::move(op_names.outputs);
        break;
      }
    }
  }
  for (const GraphOutput& output : graph.outputs) {
    writer.node("Identity", {names[output.value.node][output.value.output]}, {output.name});
    set_value_info(*proto.add_output(), output.name, graph.meta(output.value),
                   writer.batched(output.value));
  }
}

}  // namespace
}  // namespace detail

std::string onnx::to_onnx(const Graph& graph, const ExportOptions& options) {
  ::onnx::ModelProto model;
  model.set_ir_version(detail::ir_version_of(options.opset));
  model.set_producer_name("ember");
  ::onnx::OperatorSetIdProto& opset = *model.add_opset_import();
  opset.set_domain("");
  opset.set_version(options.opset);
  ::onnx::GraphProto& proto = *model.mutable_graph();
  proto.set_name(options.graph_name);
  const Graph exported = detail::with_composites(graph, detail::written_as_onnx);
  detail::OnnxWriter writer(proto, options, exported.impl());
  detail::write_graph(exported.impl(), writer, proto);
  std::string bytes;
  if (!model.SerializeToString(&bytes))
    throw ExecutionError("[onnx::to_onnx] protobuf could not serialize the model");
  return bytes;
}

void onnx::save_onnx(const Graph& graph, const std::filesystem::path& path,
                     const ExportOptions& options) {
  record::write_file_atomically(path, to_onnx(graph, options), "onnx::save_onnx");
}

}  // namespace ember
