// onnx::Model: reading (onnx_model.cpp), its signature, and running it (onnx_import.cpp).
#include <climits>
#include <fstream>
#include <iterator>
#include <map>

#include "ember/error.h"
#include "ember/onnx.h"
#include "ember/tensor_ops.h"
#include "graph/onnx/onnx_import.h"
#include "graph/onnx/onnx_model.h"
#include "graph/onnx/onnx_node.h"
#include "ir/rules.h"

namespace ember::onnx {

namespace {

std::string read_file(const std::filesystem::path& path, std::string_view who) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    throw InvalidArgument(ir::rules::concat("[", who, "] ", path.string(), ": cannot be opened"));
  return std::string((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
}

}  // namespace

TensorData parse_tensor(std::span<const std::byte> bytes) {
  ::onnx::TensorProto tensor;
  if (bytes.size() > static_cast<std::size_t>(INT_MAX) ||
      !tensor.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    throw InvalidArgument("[onnx::parse_tensor] not a serialized TensorProto");
  try {
    return detail::decode_tensor(tensor, "tensor '" + tensor.name() + "'");
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(std::string("[onnx::parse_tensor] ") + e.what());
  }
}

TensorData load_tensor(const std::filesystem::path& path) {
  const std::string bytes = read_file(path, "onnx::load_tensor");
  try {
    return parse_tensor(std::as_bytes(std::span(bytes)));
  } catch (const InvalidArgument& e) {
    throw InvalidArgument("[onnx::load_tensor] " + path.string() + ": " + e.what());
  }
}

Model Model::parse(std::span<const std::byte> bytes) {
  return Model(std::make_shared<detail::OnnxModel>(detail::parse_onnx_model(bytes, "bytes")));
}

Model Model::load(const std::filesystem::path& path) {
  const std::string text = read_file(path, "onnx::Model");
  return Model(std::make_shared<detail::OnnxModel>(
      detail::parse_onnx_model(std::as_bytes(std::span(text)), path.string())));
}

int64_t Model::opset() const {
  return impl_->opset;
}

std::vector<ValueInfo> Model::inputs() const {
  return impl_->inputs;
}

std::vector<ValueInfo> Model::outputs() const {
  return impl_->outputs;
}

const std::vector<record::NamedData>& Model::initializers() const {
  return impl_->initializers;
}

namespace {

/// Counts the nodes of graph and of its graph attributes (If's branches, loop bodies), by op.
void count_ops(const ::onnx::GraphProto& graph, std::size_t depth,
               std::map<std::string, OpCount>& counts) {
  for (const ::onnx::NodeProto& node : graph.node()) {
    const std::string op = detail::qualified_op_type(node);
    ++counts.try_emplace(op, OpCount{op, 0, true}).first->second.count;
    for (const ::onnx::AttributeProto& attribute : node.attribute()) {
      if (attribute.type() == ::onnx::AttributeProto::GRAPH && depth < detail::kMaxGraphDepth)
        count_ops(attribute.g(), depth + 1, counts);
    }
  }
}

}  // namespace

std::vector<OpCount> Model::op_counts() const {
  std::map<std::string, OpCount> counts;
  for (const auto& [op, nodes] : detail::unsupported_ops(*impl_))
    counts[op] = {op, 0, false};
  count_ops(impl_->proto.graph(), 0, counts);
  std::vector<OpCount> sorted;
  for (auto& [op, count] : counts)
    sorted.push_back(std::move(count));
  return sorted;
}

Graph Model::to_graph(const std::vector<Shape>& input_shapes,
                      const std::vector<std::optional<TensorData>>& known) const {
  return detail::import_graph(*impl_, input_shapes, known).graph;
}

namespace {

/// data with shape [1] when ONNX gives it rank 0 (ember's tensors have rank >= 1).
TensorData with_rank(const TensorData& data, bool scalar) {
  const Shape shape = scalar ? Shape{} : data.shape().rank() == 0 ? Shape{1} : data.shape();
  return TensorData(std::vector<std::byte>(data.bytes().begin(), data.bytes().end()), shape,
                    data.dtype());
}

}  // namespace

std::vector<TensorData> Model::run(const Device& device,
                                   const std::vector<TensorData>& inputs) const {
  std::vector<Shape> shapes;
  std::vector<std::optional<TensorData>> known;
  std::vector<TensorHandle> handles;
  for (const TensorData& input : inputs) {
    shapes.push_back(input.shape());
    known.push_back(input);  // ops may read them, as onnxruntime's know every input's values
    handles.push_back(ops::from_data(with_rank(input, false),
                                     TensorCreationOptions(device).with_dtype(input.dtype()),
                                     kind_of(input.dtype())));
  }
  const detail::ImportedGraph imported = detail::import_graph(*impl_, shapes, known);
  const std::vector<TensorHandle> outputs = imported.graph.replay(device, handles);
  std::vector<TensorData> results;
  for (std::size_t k = 0; k < outputs.size(); ++k)
    results.push_back(with_rank(ops::into_data(outputs[k]), imported.scalar_outputs[k]));
  return results;
}

}  // namespace ember::onnx
