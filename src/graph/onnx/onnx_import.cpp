// ONNX import: the model's nodes run in order through their importers, recording an ember graph
// on the capture device (values known while building run on ndarray instead: onnx_node.h).
#include "graph/onnx/onnx_import.h"

#include <map>
#include <string>
#include <unordered_map>

#include "ember/error.h"
#include "ember/tensor_ops.h"
#include "graph/onnx/onnx_node.h"

namespace ember::detail {
namespace {

/// The most elements a value computed while the graph is built may have (onnx_node.h's known
/// values: shapes, axes, small constants); larger ones are recorded into the graph instead.
constexpr int64_t kMaxFoldedElements = int64_t{1} << 20;
/// The most nodes an import builds, graph attributes and every unrolled iteration counted: each
/// Loop or Scan is bounded on its own, but loops nested in loops multiply, and a hostile model
/// must not build without end.
constexpr std::size_t kMaxBuiltNodes = std::size_t{1} << 18;

/// A value of the graph being built, its copy on the capture device once one was needed, and
/// (for a graph input given with its values) those values, which ops may read.
struct Slot {
  OnnxValue value;
  std::optional<TensorHandle> on_capture;
  std::optional<TensorHandle> readable;
};

bool is_known(const OnnxValue& value) {
  return value.tensor.device() == Device::ndarray();
}

/// ONNX's shape as an ember tensor's: rank 0 becomes [1].
Shape ember_shape(const Shape& shape) {
  return shape.rank() == 0 ? Shape{1} : shape;
}

const TensorHandle& symbolic(Slot& slot) {
  if (!is_known(slot.value)) return slot.value.tensor;
  if (!slot.on_capture) slot.on_capture = ops::to_device(slot.value.tensor, Device::capture());
  return *slot.on_capture;
}

TensorHandle known_tensor(const TensorData& data) {
  const TensorData fixed(std::vector<std::byte>(data.bytes().begin(), data.bytes().end()),
                         ember_shape(data.shape()), data.dtype());
  return ops::from_data(fixed, TensorCreationOptions(Device::ndarray()).with_dtype(data.dtype()),
                        kind_of(data.dtype()));
}

void check_input(const onnx::ValueInfo& info, const Shape& shape, std::size_t k,
                 const std::vector<std::optional<TensorData>>& known) {
  if (k < known.size() && known[k] && known[k]->dtype() != info.dtype) {
    throw InvalidArgument(ir::rules::concat("[onnx] input ", k, " ('", info.name, "') is ",
                                            known[k]->dtype(), ", the model takes ", info.dtype));
  }
  bool fits = info.dims.empty() || info.dims.size() == shape.rank();
  for (std::size_t d = 0; fits && d < info.dims.size(); ++d)
    fits = !info.dims[d] || *info.dims[d] == shape.dims()[d];
  if (!fits) {
    throw InvalidArgument(ir::rules::concat("[onnx] input ", k, " ('", info.name, "') of shape ",
                                            shape, " does not fit the model's dims"));
  }
}

/// Leaves a graph attribute's scope.
struct ScopeExit {
  std::vector<std::unordered_map<std::string, Slot>>& scopes;
  explicit ScopeExit(std::vector<std::unordered_map<std::string, Slot>>& s) : scopes(s) {}
  ScopeExit(const ScopeExit&) = delete;
  ScopeExit& operator=(const ScopeExit&) = delete;
  ~ScopeExit() { scopes.pop_back(); }
};

class Builder {
 public:
  explicit Builder(const OnnxModel& model) : model_(model), scopes_(1) {}

  std::vector<TensorHandle> add_inputs(const std::vector<Shape>& shapes,
                                       const std::vector<std::optional<TensorData>>& known);
  void run_nodes();
  ImportedGraph finish(const std::vector<TensorHandle>& placeholders);

 private:
  void run_node(const ::onnx::NodeProto& node, std::size_t index);
  /// node's outputs: recorded on the capture device, or computed on ndarray (fold).
  std::vector<OnnxValue> import_node(const ::onnx::NodeProto& node, const std::string& label,
                                     bool fold);
  /// A graph attribute of the node labelled owner built in a scope of its own (GraphRunner).
  std::vector<OnnxValue> run_graph(const ::onnx::GraphProto& graph,
                                   const std::vector<OnnxValue>& inputs, const std::string& owner);
  /// The value name, from the innermost scope that defines it; InvalidArgument naming the node
  /// labelled reader when none does.
  Slot& slot(const std::string& name, const std::string& reader);

  const OnnxModel& model_;
  std::size_t nodes_built_ = 0;  ///< toward kMaxBuiltNodes
  /// The values by name: the model's graph's, then those of the graph attributes being built.
  std::vector<std::unordered_map<std::string, Slot>> scopes_;
};

Slot& Builder::slot(const std::string& name, const std::string& reader) {
  for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope) {
    const auto found = scope->find(name);
    if (found != scope->end()) return found->second;
  }
  throw InvalidArgument(
      ir::rules::concat("[onnx] ", reader, ": reads '", name, "', which nothing defines"));
}

std::vector<OnnxValue> Builder::run_graph(const ::onnx::GraphProto& graph,
                                          const std::vector<OnnxValue>& inputs,
                                          const std::string& owner) {
  if (scopes_.size() > kMaxGraphDepth)
    throw InvalidArgument(ir::rules::concat(
        "[onnx] ", owner, ": graph attributes nest deeper than ", kMaxGraphDepth));
  scopes_.emplace_back();
  const ScopeExit pop{scopes_};  // however the graph's nodes end
  for (const ::onnx::TensorProto& tensor : graph.initializer()) {
    const TensorData data =
        decode_tensor(tensor, ir::rules::concat("initializer '", tensor.name(), "' of ", owner));
    scopes_.back()[tensor.name()] = {{known_tensor(data), data.shape().rank() == 0}, {}, {}};
  }
  for (std::size_t i = 0; i < inputs.size(); ++i)
    scopes_.back()[graph.input(static_cast<int>(i)).name()] = {inputs[i], {}, {}};
  for (int i = 0; i < graph.node_size(); ++i)
    run_node(graph.node(i), static_cast<std::size_t>(i));
  std::vector<OnnxValue> outputs;
  for (const ::onnx::ValueInfoProto& output : graph.output())
    outputs.push_back(slot(output.name(), owner).value);
  return outputs;
}

std::vector<TensorHandle> Builder::add_inputs(const std::vector<Shape>& shapes,
                                              const std::vector<std::optional<TensorData>>& known) {
  std::unordered_map<std::string, Slot>& slots = scopes_.front();
  for (const record::NamedData& weight : model_.initializers)
    slots[weight.name] = {{known_tensor(weight.data), weight.data.shape().rank() == 0}, {}, {}};
  std::vector<TensorHandle> placeholders;
  for (std::size_t k = 0; k < model_.inputs.size(); ++k) {
    const onnx::ValueInfo& info = model_.inputs[k];
    check_input(info, shapes[k], k, known);
    TensorHandle placeholder =
        Graph::input(info.name, ember_shape(shapes[k]), info.dtype, Device::capture());
    placeholders.push_back(placeholder);
    const bool scalar = shapes[k].rank() == 0;
    if (k >= known.size() || !known[k]) {
      slots[info.name] = {{placeholder, scalar}, {}, {}};
    } else if (kind_of(info.dtype) != TensorKind::Float || scalar) {
      // Integers and scalars are what ops compute shapes and parameters from: known.
      slots[info.name] = {{known_tensor(*known[k]), scalar}, placeholder, {}};
    } else {
      slots[info.name] = {{placeholder, scalar}, {}, known_tensor(*known[k])};
    }
  }
  return placeholders;
}

std::vector<OnnxValue> Builder::import_node(const ::onnx::NodeProto& node, const std::string& label,
                                            bool fold) {
  std::vector<std::optional<OnnxValue>> inputs;
  std::vector<std::optional<TensorHandle>> known;
  for (const std::string& name : node.input()) {
    if (name.empty()) {
      inputs.emplace_back();
      known.emplace_back();
      continue;
    }
    Slot& value = slot(name, label);
    inputs.push_back(fold ? value.value : OnnxValue{symbolic(value), value.value.scalar});
    known.push_back(is_known(value.value) ? std::optional(value.value.tensor) : value.readable);
  }
  const OnnxNode view(
      node, label, model_.opset, std::move(inputs), std::move(known),
      fold ? Device::ndarray() : Device::capture(),
      [this, &label](const ::onnx::GraphProto& graph, const std::vector<OnnxValue>& values) {
        return run_graph(graph, values, label);
      });
  std::vector<OnnxValue> outputs;
  try {
    outputs = onnx_importers().at(qualified_op_type(node))(view);
  } catch (const InvalidArgument& e) {
    const std::string what = e.what();
    if (what.starts_with("[onnx] ")) throw;
    view.fail(what);  // an ember op refused its arguments: name the node
  }
  for (int k = 0; k < node.output_size(); ++k) {
    if (!node.output(k).empty() && static_cast<std::size_t>(k) >= outputs.size())
      view.fail("output ", k, " ('", node.output(k), "') is not computed by ember's import");
  }
  return outputs;
}

/// Whether every output is small enough to compute while the graph is built.
bool foldable(const std::vector<OnnxValue>& outputs) {
  for (const OnnxValue& output : outputs) {
    if (output.tensor.shape().num_elements() > kMaxFoldedElements) return false;
  }
  return true;
}

void Builder::run_node(const ::onnx::NodeProto& node, std::size_t index) {
  const std::string label = node_label(node, index);
  if (++nodes_built_ > kMaxBuiltNodes) {
    throw InvalidArgument(ir::rules::concat("[onnx] ", label, ": the model builds more than ",
                                            kMaxBuiltNodes,
                                            " nodes (graph attributes and loops unrolled)"));
  }
  bool all_known = true;
  for (const std::string& name : node.input())
    all_known = all_known && (name.empty() || is_known(slot(name, label).value));
  // Recorded first, which allocates nothing; computed on ndarray only when all its inputs are
  // known and its outputs small: a hostile model's Tile or Expand cannot size an allocation here.
  std::vector<OnnxValue> outputs = import_node(node, label, false);
  if (all_known && foldable(outputs) && !draws_random(qualified_op_type(node)))
    outputs = import_node(node, label, true);
  for (int k = 0; k < node.output_size(); ++k) {
    if (!node.output(k).empty())
      scopes_.back()[node.output(k)] = {outputs[static_cast<std::size_t>(k)], {}, {}};
  }
}

void Builder::run_nodes() {
  const auto& nodes = model_.proto.graph().node();
  for (int i = 0; i < nodes.size(); ++i)
    run_node(nodes[i], static_cast<std::size_t>(i));
}

ImportedGraph Builder::finish(const std::vector<TensorHandle>& placeholders) {
  std::vector<TensorHandle> outputs;
  std::vector<std::string> names;
  std::vector<bool> scalars;
  for (const onnx::ValueInfo& output : model_.outputs) {
    Slot& value = slot(output.name, "the model's outputs");
    outputs.push_back(symbolic(value));
    names.push_back(output.name);
    scalars.push_back(value.value.scalar);
  }
  return {Graph::trace(placeholders, outputs, names), scalars};
}

}  // namespace

namespace {

/// The nodes of graph (and of its graph attributes, to the depth the builder takes) whose op
/// ember does not import, by op.
void collect_unsupported(const ::onnx::GraphProto& graph, std::size_t depth,
                         std::map<std::string, std::vector<std::string>>& missing) {
  const OnnxImporters& importers = onnx_importers();
  for (int i = 0; i < graph.node_size(); ++i) {
    const ::onnx::NodeProto& node = graph.node(i);
    if (!importers.contains(qualified_op_type(node)))
      missing[qualified_op_type(node)].push_back(node_label(node, static_cast<std::size_t>(i)));
    for (const ::onnx::AttributeProto& attribute : node.attribute()) {
      if (attribute.type() == ::onnx::AttributeProto::GRAPH && depth < kMaxGraphDepth)
        collect_unsupported(attribute.g(), depth + 1, missing);
    }
  }
}

}  // namespace

std::vector<std::pair<std::string, std::vector<std::string>>> unsupported_ops(
    const OnnxModel& model) {
  std::map<std::string, std::vector<std::string>> missing;
  collect_unsupported(model.proto.graph(), 0, missing);
  return {missing.begin(), missing.end()};
}

ImportedGraph import_graph(const OnnxModel& model, const std::vector<Shape>& input_shapes,
                           const std::vector<std::optional<TensorData>>& known) {
  const auto missing = unsupported_ops(model);
  if (!missing.empty()) {
    std::string list;
    for (const auto& [op, nodes] : missing) {
      list += ir::rules::concat(list.empty() ? "" : "; ", op, " (", nodes.size(), " node",
                                nodes.size() == 1 ? "" : "s", ", first ", nodes.front(), ")");
    }
    throw InvalidArgument("[onnx] the model uses ops ember does not import: " + list);
  }
  if (input_shapes.size() != model.inputs.size()) {
    throw InvalidArgument(ir::rules::concat("[onnx] the model takes ", model.inputs.size(),
                                            " inputs, got ", input_shapes.size(), " shapes"));
  }
  Builder builder(model);
  const std::vector<TensorHandle> placeholders = builder.add_inputs(input_shapes, known);
  builder.run_nodes();
  return builder.finish(placeholders);
}

}  // namespace ember::detail
