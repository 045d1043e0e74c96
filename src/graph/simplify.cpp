// Graph::simplified: one pass in the graph's order merges repeated ops and constants (common
// subexpressions) and computes ops of constants (constant folding); a second keeps only what the
// outputs depend on (dead-code elimination).
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "backends/registry.h"
#include "ember/error.h"
#include "ember/graph.h"
#include "ember/tensor_ops.h"
#include "graph/graph_impl.h"
#include "ir/rules.h"
#include "tensor/dispatch.h"
#include "wire/op_text.h"

namespace ember {
namespace {

using detail::GraphImpl;
using detail::GraphNode;
using detail::ValueRef;

/// A key equal for two nodes exactly when they compute the same values: the op's text (its
/// members, written by the wire's derived encoding) and its operands, or a constant's bytes.
/// nullopt for what must never merge: placeholders, and random ops (two draws differ).
std::optional<std::string> merge_key(const GraphNode& node) {
  switch (node.kind) {
    case GraphNode::Kind::Input:
      return std::nullopt;
    case GraphNode::Kind::Constant: {
      const auto bytes = node.data->bytes();
      std::string key = ir::rules::concat("c ", node.data->dtype(), ' ', node.data->shape(), ' ');
      key.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
      return key;
    }
    case GraphNode::Kind::Op:
      break;
  }
  if (std::holds_alternative<ir::Random>(*node.op)) return std::nullopt;
  std::string key = wire::op_to_text(*node.op);
  for (const ValueRef& input : node.inputs)
    key += " %" + std::to_string(input.node) + "." + std::to_string(input.output);
  return key;
}

/// The reference device constants are folded on, if compiled in.
std::optional<Device> folding_device() {
  if (!backend::is_compiled(DeviceType::Kind::NdArray)) return std::nullopt;
  return Device::ndarray();
}

/// node's values when every operand is a constant of graph (and it has one, and is not random):
/// computed on device. nullopt otherwise.
std::optional<std::vector<TensorData>> fold(const GraphImpl& graph, const GraphNode& node,
                                            const std::optional<Device>& device) {
  if (!device || node.kind != GraphNode::Kind::Op || node.inputs.empty() ||
      std::holds_alternative<ir::Random>(*node.op))
    return std::nullopt;
  std::vector<TensorHandle> operands;
  for (const ValueRef& input : node.inputs) {
    const GraphNode& operand = graph.nodes[input.node];
    if (operand.kind != GraphNode::Kind::Constant) return std::nullopt;
    const DType dtype = operand.data->dtype();
    operands.push_back(ops::from_data(
        *operand.data, TensorCreationOptions(*device).with_dtype(dtype), kind_of(dtype)));
  }
  std::vector<TensorData> values;
  try {
    for (const TensorHandle& result : tensor::run(*node.op, operands))
      values.push_back(ops::into_data(result));
  } catch (const InvalidArgument&) {
    return std::nullopt;  // (an index out of range): left to fail where the graph is replayed
  }
  return values;
}

GraphNode constant_node(TensorData data) {
  GraphNode node;
  node.kind = GraphNode::Kind::Constant;
  node.outputs.push_back({data.shape(), data.dtype()});
  node.data = std::move(data);
  return node;
}

/// The first pass: graph with repeated nodes merged and ops of constants folded (a folded op of
/// k outputs becomes k constants). Nothing is removed yet: a node no longer used stays, for
/// remove_dead.
GraphImpl merge_and_fold(const GraphImpl& graph, SimplifyReport& report) {
  const std::optional<Device> device = folding_device();
  GraphImpl out;
  // Where each output of each old node went in out.
  std::vector<std::vector<ValueRef>> moved(graph.nodes.size());
  std::unordered_map<std::string, std::size_t> seen;
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    GraphNode node = graph.nodes[i];
    for (ValueRef& input : node.inputs)
      input = moved[input.node][input.output];
    if (auto values = fold(out, node, device)) {
      ++report.folded;
      for (TensorData& value : *values) {
        moved[i].push_back({out.nodes.size(), 0});
        out.nodes.push_back(constant_node(std::move(value)));
      }
      continue;
    }
    const std::optional<std::string> key = merge_key(node);
    if (key) {
      if (auto found = seen.find(*key); found != seen.end()) {
        if (node.kind == GraphNode::Kind::Op) ++report.repeated;
        for (uint32_t k = 0; k < node.outputs.size(); ++k)
          moved[i].push_back({found->second, k});
        continue;
      }
      seen.emplace(*key, out.nodes.size());
    }
    for (uint32_t k = 0; k < node.outputs.size(); ++k)
      moved[i].push_back({out.nodes.size(), k});
    out.nodes.push_back(std::move(node));
  }
  for (const detail::GraphOutput& output : graph.outputs)
    out.outputs.push_back({output.name, moved[output.value.node][output.value.output]});
  return out;
}

/// The second pass: graph without the ops and constants no output depends on (placeholders
/// stay: they are the graph's signature).
GraphImpl remove_dead(const GraphImpl& graph, SimplifyReport& report) {
  std::vector<bool> live(graph.nodes.size(), false);
  for (const detail::GraphOutput& output : graph.outputs)
    live[output.value.node] = true;
  for (std::size_t i = graph.nodes.size(); i-- > 0;) {
    if (graph.nodes[i].kind == GraphNode::Kind::Input) live[i] = true;
    if (!live[i]) continue;
    for (const ValueRef& input : graph.nodes[i].inputs)
      live[input.node] = true;
  }
  GraphImpl out;
  std::vector<std::size_t> index(graph.nodes.size());
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    if (!live[i]) {
      if (graph.nodes[i].kind == GraphNode::Kind::Op) ++report.dead;
      continue;
    }
    index[i] = out.nodes.size();
    GraphNode node = graph.nodes[i];
    for (ValueRef& input : node.inputs)
      input.node = index[input.node];
    out.nodes.push_back(std::move(node));
  }
  for (detail::GraphOutput output : graph.outputs) {
    output.value.node = index[output.value.node];
    out.outputs.push_back(std::move(output));
  }
  return out;
}

}  // namespace

Graph Graph::simplified(SimplifyReport* report) const {
  SimplifyReport counts;
  GraphImpl merged = merge_and_fold(*impl_, counts);
  auto simplified = std::make_shared<GraphImpl>(remove_dead(merged, counts));
  if (report != nullptr) *report = counts;
  return Graph(std::move(simplified));
}

}  // namespace ember
