// Which values of a graph carry the batch, for a dynamic batch dim (onnx_writer.h).
#include <optional>
#include <variant>
#include <vector>

#include "ember/error.h"
#include "graph/onnx/onnx_writer.h"
#include "ir/rules.h"

namespace ember::detail {
namespace {

/// The inputs' common dim 0 (nullopt without inputs of rank 1 or more); InvalidArgument when
/// they differ.
std::optional<int64_t> batch_of(const GraphImpl& graph) {
  std::optional<int64_t> batch;
  for (const GraphNode& node : graph.nodes) {
    if (node.kind != GraphNode::Kind::Input || node.outputs[0].shape.rank() == 0) continue;
    const int64_t dim = node.outputs[0].shape.dims()[0];
    if (batch && *batch != dim) {
      throw InvalidArgument(ir::rules::concat(
          "[onnx::to_onnx] a dynamic batch needs inputs of one ", "dim 0; input '", node.name,
          "' has ", dim, ", an earlier one ", *batch));
    }
    batch = dim;
  }
  return batch;
}

/// Whether op reduces dim 0 away (or every dim): its result no longer grows with the batch.
bool reduces_batch(const ir::Op& op) {
  const auto* reduce = std::get_if<ir::Reduce>(&op);
  return reduce != nullptr && (!reduce->dim || *reduce->dim == 0);
}

}  // namespace

std::vector<std::vector<bool>> batched_values(const GraphImpl& graph) {
  std::vector<std::vector<bool>> batched(graph.nodes.size());
  const std::optional<int64_t> batch = batch_of(graph);
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    const GraphNode& node = graph.nodes[i];
    batched[i].assign(node.outputs.size(), false);
    if (!batch) continue;
    bool from_batched = node.kind == GraphNode::Kind::Input;
    for (const ValueRef& input : node.inputs)
      from_batched = from_batched || batched[input.node][input.output];
    if (!from_batched || (node.op && reduces_batch(*node.op))) continue;
    for (std::size_t k = 0; k < node.outputs.size(); ++k)
      batched[i][k] = node.outputs[k].shape.rank() > 0;
  }
  return batched;
}

}  // namespace ember::detail
