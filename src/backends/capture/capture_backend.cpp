#include "backends/capture/capture_backend.h"

#include <memory>
#include <utility>

#include "backends/capture/capture_node.h"
#include "ember/error.h"
#include "ir/rules.h"

namespace ember::backend::capture {
namespace {

/// The node value an operand of this backend holds.
const Value& value_of(const Operand& operand) {
  // Every buffer of a capture device's tensors is made here, and dispatch refuses an op mixing
  // devices, so the cast cannot fail.
  return static_cast<const CaptureBuffer&>(*operand.buffer).value();
}

}  // namespace

std::string CaptureBackend::description() const {
  return "symbolic tensors: ops are recorded into a graph, nothing is computed";
}

bool CaptureBackend::supports_dtype(DType /*dtype*/) const {
  return true;
}

bool CaptureBackend::runs_fused_rows(const ir::Op& /*op*/,
                                     std::span<const ir::TensorMeta> /*inputs*/) const {
  return true;
}

Outputs CaptureBackend::execute(const ir::Op& op, std::span<const Operand> inputs,
                                std::span<const ir::TensorMeta> outputs) {
  ir::OutputMetas metas;
  for (const ir::TensorMeta& meta : outputs)
    metas.push_back(meta);
  auto node = std::make_shared<Node>(Node::Kind::Op, std::move(metas));
  node->op = op;
  node->inputs.reserve(inputs.size());
  for (const Operand& input : inputs)
    node->inputs.push_back(value_of(input));
  const std::shared_ptr<const Node> recorded = std::move(node);
  Outputs buffers;
  for (uint32_t i = 0; i < outputs.size(); ++i)
    buffers.push_back(std::make_shared<CaptureBuffer>(Value{recorded, i}));
  return buffers;
}

BufferPtr CaptureBackend::write(const TensorData& data) {
  ir::OutputMetas metas;
  metas.push_back({data.shape(), data.dtype()});
  auto node = std::make_shared<Node>(Node::Kind::Constant, std::move(metas));
  node->data = data;
  return std::make_shared<CaptureBuffer>(Value{std::move(node), 0});
}

TensorData CaptureBackend::read(const Operand& operand) {
  throw InvalidArgument(ir::rules::concat(
      "[into_data] a tensor of the capture device (shape ", operand.meta.shape, ", ",
      operand.meta.dtype,
      ") is symbolic and has no values: build an ember::Graph from it (Graph::trace) and replay "
      "the graph on a real device (Graph::replay) to compute them"));
}

}  // namespace ember::backend::capture
