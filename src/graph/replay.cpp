// Graph::replay: every node run on a real device through the Tensor API's dispatch, as the code
// that recorded the graph would have run there.
#include <cstddef>
#include <limits>
#include <memory>
#include <vector>

#include "ember/graph.h"
#include "ember/tensor_ops.h"
#include "graph/expand.h"
#include "graph/graph_impl.h"
#include "ir/fused_rows.h"
#include "tensor/check.h"
#include "tensor/dispatch.h"
#include "tensor/fused_path.h"
#include "tensor/fused_row_composites.h"
#include "tensor/tensor_impl.h"

namespace ember {
namespace {

constexpr std::string_view kReplay = "Graph::replay";

/// The index of the last node reading each node's values (an output's: past the end), so that
/// replay drops each intermediate as soon as it is used up, as eager code would: the device's
/// fusion then sees the same live values.
std::vector<std::size_t> last_uses(const detail::GraphImpl& graph) {
  std::vector<std::size_t> last(graph.nodes.size(), 0);
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    for (const detail::ValueRef& input : graph.nodes[i].inputs)
      last[input.node] = i;
  }
  for (const detail::GraphOutput& output : graph.outputs)
    last[output.value.node] = std::numeric_limits<std::size_t>::max();
  return last;
}

void check_input(const TensorHandle& given, const detail::GraphNode& node, std::size_t k,
                 const Device& device) {
  const detail::TensorImpl& impl = tensor::impl_of(given, kReplay);
  const ir::TensorMeta& meta = node.outputs[0];
  if (!(impl.device == device)) {
    tensor::fail(kReplay, "input ", k, " ('", node.name, "') is a tensor of ", impl.device.name(),
                 ", not of ", device.name());
  }
  if (impl.meta != meta) {
    tensor::fail(kReplay, "input ", k, " ('", node.name, "') has shape ", impl.meta.shape, " of ",
                 impl.meta.dtype, ", the graph takes ", meta.shape, " of ", meta.dtype);
  }
}

/// Runs one op node on its operands' values: a fused row op as itself or as its composite, as
/// runs_fused says.
ops::Handles run_op(const detail::GraphNode& node, const std::vector<ops::Handles>& values,
                    const Device& device, const std::shared_ptr<detail::DeviceContext>& context,
                    const detail::RunsFused& runs_fused) {
  ir::Op op = *node.op;
  // A random op draws its key from the device's stream, as the op run eagerly does.
  if (auto* random = std::get_if<ir::Random>(&op)) random->key = context->next_random_key();
  if (node.inputs.empty()) return {tensor::run_on(op, device, context)};
  std::vector<TensorHandle> operands;
  operands.reserve(node.inputs.size());
  for (const detail::ValueRef& input : node.inputs)
    operands.push_back(values[input.node][input.output]);
  if (ir::is_fused_row_op(op) && !runs_fused(op, operands))
    return tensor::composite_of(op, operands);
  return tensor::run(op, operands);
}

}  // namespace

std::vector<TensorHandle> detail::replay(const Graph& source, const Device& device,
                                         const std::vector<TensorHandle>& inputs,
                                         const RunsFused& runs_fused) {
  const detail::GraphImpl& graph = source.impl();
  const std::vector<GraphValue> expected = source.inputs();
  if (inputs.size() != expected.size())
    tensor::fail(kReplay, "the graph takes ", expected.size(), " inputs, got ", inputs.size());
  auto context = detail::DeviceContext::of(device.as_dispatch());
  context->lock_settings();  // as every tensor created on a device does
  const std::vector<std::size_t> last = last_uses(graph);
  std::vector<ops::Handles> values(graph.nodes.size());
  std::size_t next_input = 0;
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    const detail::GraphNode& node = graph.nodes[i];
    switch (node.kind) {
      case detail::GraphNode::Kind::Input:
        check_input(inputs[next_input], node, next_input, device);
        values[i] = {inputs[next_input++]};
        break;
      case detail::GraphNode::Kind::Constant: {
        const DType dtype = node.data->dtype();
        values[i] = {ops::from_data(*node.data, TensorCreationOptions(device).with_dtype(dtype),
                                    kind_of(dtype))};
        break;
      }
      case detail::GraphNode::Kind::Op:
        values[i] = run_op(node, values, device, context, runs_fused);
        break;
    }
    for (const detail::ValueRef& input : node.inputs) {
      if (last[input.node] == i) values[input.node].clear();
    }
  }
  std::vector<TensorHandle> outputs;
  for (const detail::GraphOutput& output : graph.outputs)
    outputs.push_back(values[output.value.node][output.value.output]);
  return outputs;
}

std::vector<TensorHandle> Graph::replay(const Device& device,
                                        const std::vector<TensorHandle>& inputs) const {
  // Each fused row op runs as the code that recorded it would have run on device: fused where
  // its backend runs it (or a tensor::FusedPathScope forces it), else as its composite.
  return detail::replay(*this, device, inputs, [](const ir::Op& op, const ops::Handles& operands) {
    return tensor::runs_fused_rows(op, operands.front(), tensor::metas_of(operands, kReplay),
                                   kReplay);
  });
}

}  // namespace ember
