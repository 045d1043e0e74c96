// Reading an ONNX model: the protobuf message parsed, then every part ember uses checked before
// it is used: the opset, the inputs' and outputs' types, the initializers (onnx_tensor.cpp), and
// that every value a node reads is defined before it and defined once (which also refuses
// cycles: ONNX lists a graph's nodes in topological order).
#include <climits>
#include <string>
#include <unordered_set>
#include <vector>

#include "ember/error.h"
#include "graph/onnx/onnx_model.h"
#include "ir/rules.h"

namespace ember::detail {
namespace {

/// Context for messages: "[onnx::Model] SOURCE: ...".
class Checker {
 public:
  explicit Checker(std::string_view source) : source_(source) {}

  template <typename... Parts>
  [[noreturn]] void fail(const Parts&... parts) const {
    throw InvalidArgument(ir::rules::concat("[onnx::Model] ", source_, ": ", parts...));
  }

 private:
  std::string_view source_;
};

/// The default domain's opset: one entry for "" or "ai.onnx", 13 or newer.
int64_t default_opset(const ::onnx::ModelProto& model, const Checker& check) {
  std::optional<int64_t> opset;
  for (const ::onnx::OperatorSetIdProto& entry : model.opset_import()) {
    if (!entry.domain().empty() && entry.domain() != "ai.onnx") continue;
    if (opset) check.fail("the default domain's opset is imported twice");
    opset = entry.version();
  }
  if (!opset) check.fail("no opset of the default ONNX domain is imported");
  if (*opset < 13) {
    check.fail("opset ", *opset, " is older than 13, the oldest ember imports (convert it with ",
               "onnx.version_converter)");
  }
  return *opset;
}

onnx::ValueInfo value_info(const ::onnx::ValueInfoProto& info, const Checker& check) {
  if (info.name().empty()) check.fail("a graph input or output has no name");
  if (!info.type().has_tensor_type())
    check.fail("'", info.name(), "' is not a tensor (sequences and maps are not imported)");
  const ::onnx::TypeProto_Tensor& tensor = info.type().tensor_type();
  const std::optional<DType> dtype = dtype_of_onnx(tensor.elem_type());
  if (!dtype) {
    check.fail("'", info.name(), "' has element type ", onnx_type_name(tensor.elem_type()),
               ", which has no ember dtype");
  }
  onnx::ValueInfo value{info.name(), *dtype, {}};
  if (!tensor.has_shape()) return value;  // rank unknown: the given tensor says
  for (const ::onnx::TensorShapeProto_Dimension& dim : tensor.shape().dim()) {
    if (dim.has_dim_value() && dim.dim_value() < 0)
      check.fail("'", info.name(), "' has dim ", dim.dim_value());
    value.dims.push_back(dim.has_dim_value() ? std::optional<int64_t>(dim.dim_value())
                                             : std::nullopt);
  }
  return value;
}

/// Records name as defined; a name defined twice is refused (ONNX graphs are in SSA form).
void define(std::unordered_set<std::string>& defined, const std::string& name, std::string_view by,
            const Checker& check) {
  if (name.empty()) return;  // an omitted optional output
  if (!defined.insert(name).second) check.fail("value '", name, "' is defined twice (by ", by, ")");
}

/// Every node reads only values defined before it; its outputs are new names.
void check_nodes(const ::onnx::GraphProto& graph, std::unordered_set<std::string>& defined,
                 const Checker& check) {
  for (int i = 0; i < graph.node_size(); ++i) {
    const ::onnx::NodeProto& node = graph.node(i);
    const std::string label = node_label(node, static_cast<std::size_t>(i));
    for (const std::string& input : node.input()) {
      if (!input.empty() && !defined.contains(input)) {
        check.fail(label, " reads '", input, "', which no input, initializer or earlier node ",
                   "defines (an undefined name, or a cycle)");
      }
    }
    for (const std::string& output : node.output())
      define(defined, output, label, check);
  }
}

void read_graph(OnnxModel& model, const Checker& check) {
  ::onnx::GraphProto& graph = *model.proto.mutable_graph();
  if (graph.sparse_initializer_size() > 0) check.fail("sparse initializers are not imported");
  std::unordered_set<std::string> defined;
  for (::onnx::TensorProto& tensor : *graph.mutable_initializer()) {
    if (tensor.name().empty()) check.fail("an initializer has no name");
    define(defined, tensor.name(), "an initializer", check);
    model.initializers.push_back(
        {tensor.name(), decode_tensor(tensor, "initializer '" + tensor.name() + "'")});
    tensor.clear_raw_data();  // the decoded copy is the one kept
  }
  for (const ::onnx::ValueInfoProto& input : graph.input()) {
    if (defined.contains(input.name())) continue;  // an initializer listed as input (IR < 4)
    model.inputs.push_back(value_info(input, check));
    define(defined, input.name(), "a graph input", check);
  }
  check_nodes(graph, defined, check);
  for (const ::onnx::ValueInfoProto& output : graph.output()) {
    model.outputs.push_back(value_info(output, check));
    if (!defined.contains(output.name()))
      check.fail("graph output '", output.name(), "' is not defined by any node or input");
  }
  if (model.outputs.empty()) check.fail("the graph has no outputs");
}

}  // namespace

OnnxModel parse_onnx_model(std::span<const std::byte> bytes, std::string_view source) {
  const Checker check(source);
  if (bytes.size() > static_cast<std::size_t>(INT_MAX))
    check.fail(bytes.size(), " bytes: protobuf reads messages of at most 2 GiB");
  OnnxModel model;
  if (!model.proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    check.fail("not an ONNX model (protobuf could not parse the ModelProto)");
  if (!model.proto.has_graph()) check.fail("the model has no graph");
  model.opset = default_opset(model.proto, check);
  read_graph(model, check);
  return model;
}

std::string node_label(const ::onnx::NodeProto& node, std::size_t index) {
  const std::string op = qualified_op_type(node);
  if (node.name().empty()) return ir::rules::concat("node #", index, " (", op, ")");
  return ir::rules::concat("node '", node.name(), "' (", op, ")");
}

std::string qualified_op_type(const ::onnx::NodeProto& node) {
  if (node.domain().empty() || node.domain() == "ai.onnx") return node.op_type();
  return node.domain() + "::" + node.op_type();
}

std::optional<DType> dtype_of_onnx(int32_t elem_type) {
  for (DType dtype : kAllDTypes) {
    if (onnx_type(dtype) == elem_type) return dtype;
  }
  return std::nullopt;  // STRING, COMPLEX*, FLOAT8*, INT4, ...: none of ember's
}

int32_t onnx_type(DType dtype) {
  using T = ::onnx::TensorProto;
  switch (dtype) {
    case DType::F64:
      return T::DOUBLE;
    case DType::F32:
      return T::FLOAT;
    case DType::F16:
      return T::FLOAT16;
    case DType::BF16:
      return T::BFLOAT16;
    case DType::I64:
      return T::INT64;
    case DType::I32:
      return T::INT32;
    case DType::I16:
      return T::INT16;
    case DType::I8:
      return T::INT8;
    case DType::U64:
      return T::UINT64;
    case DType::U32:
      return T::UINT32;
    case DType::U16:
      return T::UINT16;
    case DType::U8:
      return T::UINT8;
    case DType::Bool:
      return T::BOOL;
  }
  return T::UNDEFINED;
}

std::string onnx_type_name(int32_t elem_type) {
  if (::onnx::TensorProto_DataType_IsValid(elem_type))
    return ::onnx::TensorProto_DataType_Name(static_cast<::onnx::TensorProto_DataType>(elem_type));
  return std::to_string(elem_type);
}

}  // namespace ember::detail
