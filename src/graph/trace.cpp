// Graph::input and Graph::trace: placeholders of the capture device, and the graph read back from
// the nodes (backends/capture/capture_node.h) that a set of output tensors holds.
#include <algorithm>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "backends/capture/capture_node.h"
#include "core/tensor_bytes.h"
#include "ember/graph.h"
#include "graph/graph_impl.h"
#include "graph/text_format.h"
#include "tensor/check.h"
#include "tensor/tensor_impl.h"

namespace ember {
namespace {

using backend::capture::CaptureBuffer;
using CaptureNode = backend::capture::Node;
using CaptureValue = backend::capture::Value;

constexpr std::string_view kTrace = "Graph::trace";

bool is_capture(const Device& device) {
  return std::holds_alternative<CaptureDevice>(device.as_dispatch());
}

/// The capture node value x is; InvalidArgument naming what for a tensor of another device.
const CaptureValue& value_of(const TensorHandle& x, std::string_view what) {
  const detail::TensorImpl& impl = tensor::impl_of(x, kTrace);
  if (!is_capture(impl.device))
    tensor::fail(kTrace, what, " is a tensor of ", impl.device.name(), ", not of capture");
  return static_cast<const CaptureBuffer&>(*impl.buffer).value();
}

/// Every node the outputs depend on, inputs' nodes excluded, in creation order (topological).
std::vector<const CaptureNode*> nodes_behind(const std::vector<TensorHandle>& outputs) {
  std::vector<const CaptureNode*> pending;
  for (const TensorHandle& output : outputs)
    pending.push_back(value_of(output, "an output").node.get());
  std::unordered_map<const CaptureNode*, bool> seen;
  std::vector<const CaptureNode*> found;
  while (!pending.empty()) {
    const CaptureNode* node = pending.back();
    pending.pop_back();
    if (!seen.emplace(node, true).second) continue;
    found.push_back(node);
    for (const CaptureValue& input : node->inputs)
      pending.push_back(input.node.get());
  }
  std::ranges::sort(found, {}, &CaptureNode::sequence);
  return found;
}

detail::GraphNode graph_node(const CaptureNode& node,
                             const std::unordered_map<const CaptureNode*, std::size_t>& index) {
  detail::GraphNode out;
  out.name = node.name;
  out.data = node.data;
  out.op = node.op;
  out.outputs = node.outputs;
  switch (node.kind) {
    case CaptureNode::Kind::Input:
      out.kind = detail::GraphNode::Kind::Input;
      break;
    case CaptureNode::Kind::Constant:
      out.kind = detail::GraphNode::Kind::Constant;
      break;
    case CaptureNode::Kind::Op:
      out.kind = detail::GraphNode::Kind::Op;
      break;
  }
  for (const CaptureValue& input : node.inputs)
    out.inputs.push_back({index.at(input.node.get()), input.output});
  return out;
}

}  // namespace

TensorHandle Graph::input(std::string name, const Shape& shape, DType dtype, const Device& device) {
  if (!is_capture(device))
    tensor::fail("Graph::input", "device ", device.name(), " is not the capture device");
  detail::check_graph_name(name, "Graph::input");
  const ir::TensorMeta meta{shape, dtype};
  if (!detail::checked_tensor_bytes(shape, dtype))
    tensor::fail("Graph::input", "shape ", shape, " of ", dtype, ' ', detail::kTooLargeForInt64);
  auto context = detail::DeviceContext::of(device.as_dispatch());
  context->lock_settings();  // as every tensor created on a device does
  return detail::make_handle(device, std::move(context), meta,
                             backend::capture::make_input(std::move(name), meta));
}

Graph Graph::trace(const std::vector<TensorHandle>& inputs,
                   const std::vector<TensorHandle>& outputs,
                   std::vector<std::string> output_names) {
  if (!output_names.empty() && output_names.size() != outputs.size())
    tensor::fail(kTrace, output_names.size(), " output names for ", outputs.size(), " outputs");
  auto graph = std::make_shared<detail::GraphImpl>();
  std::unordered_map<const CaptureNode*, std::size_t> index;
  for (const TensorHandle& input : inputs) {
    const CaptureNode* node = value_of(input, "an input").node.get();
    if (node->kind != CaptureNode::Kind::Input)
      tensor::fail(kTrace, "input ", graph->nodes.size(), " is not a placeholder (Graph::input)");
    if (!index.emplace(node, graph->nodes.size()).second)
      tensor::fail(kTrace, "placeholder '", node->name, "' is listed twice");
    graph->nodes.push_back(graph_node(*node, index));
  }
  for (const CaptureNode* node : nodes_behind(outputs)) {
    if (index.contains(node)) continue;
    if (node->kind == CaptureNode::Kind::Input)
      tensor::fail(kTrace, "the outputs depend on placeholder '", node->name,
                   "', which is not among the inputs");
    index.emplace(node, graph->nodes.size());
    graph->nodes.push_back(graph_node(*node, index));
  }
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const CaptureValue& value = value_of(outputs[i], "an output");
    std::string name = output_names.empty() ? "output" + std::to_string(i) : output_names[i];
    detail::check_graph_name(name, kTrace);
    graph->outputs.push_back({std::move(name), {index.at(value.node.get()), value.output}});
  }
  return Graph(std::move(graph));
}

}  // namespace ember
