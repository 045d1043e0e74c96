// A graph with some of its fused row ops expanded into their composites (expand.h).
#include "graph/expand.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "graph/graph_impl.h"
#include "ir/fused_rows.h"
#include "tensor/fused_row_composites.h"

namespace ember::detail {

Graph with_composites(const Graph& graph, const std::function<bool(const ir::Op&)>& keep) {
  const bool any = std::ranges::any_of(graph.impl().nodes, [&](const GraphNode& node) {
    return node.op && ir::is_fused_row_op(*node.op) && !keep(*node.op);
  });
  if (!any) return graph;
  // Replayed on the capture device, every op records itself again, the expanded ones as the ops
  // of their composites.
  const Device capture = Device::capture();
  std::vector<TensorHandle> inputs;
  for (const GraphValue& input : graph.inputs())
    inputs.push_back(Graph::input(input.name, input.shape, input.dtype, capture));
  const std::vector<TensorHandle> outputs =
      replay(graph, capture, inputs,
             [&](const ir::Op& op, const ops::Handles& /*operands*/) { return keep(op); });
  std::vector<std::string> names;
  for (const GraphValue& output : graph.outputs())
    names.push_back(output.name);
  return Graph::trace(inputs, outputs, std::move(names));
}

}  // namespace ember::detail
