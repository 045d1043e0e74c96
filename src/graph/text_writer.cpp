// Writes the graph text format: one line per node, in the graph's order, then the outputs.
#include <cstddef>
#include <sstream>
#include <string>

#include "graph/text_format.h"
#include "wire/op_text.h"

namespace ember::detail {
namespace {

void write_meta(std::ostream& out, const ir::TensorMeta& meta) {
  out << dtype_name(meta.dtype) << " [";
  const auto dims = meta.shape.dims();
  for (std::size_t i = 0; i < dims.size(); ++i)
    out << (i > 0 ? ", " : "") << dims[i];
  out << ']';
}

void write_ref(std::ostream& out, const ValueRef& value) {
  out << '%' << value.node;
  if (value.output > 0) out << '.' << value.output;
}

void write_hex(std::ostream& out, std::span<const std::byte> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  for (std::byte b : bytes) {
    const auto v = std::to_integer<unsigned>(b);
    out << kDigits[v >> 4] << kDigits[v & 15];
  }
}

void write_op(std::ostream& out, const GraphNode& node) {
  out << ir::name(*node.op) << '(';
  for (std::size_t i = 0; i < node.inputs.size(); ++i) {
    if (i > 0) out << ", ";
    write_ref(out, node.inputs[i]);
  }
  out << ") ";
  for (std::size_t i = 0; i < node.outputs.size(); ++i) {
    if (i > 0) out << ", ";
    write_meta(out, node.outputs[i]);
  }
  out << ' ' << wire::op_to_text(*node.op);
}

void write_node(std::ostream& out, const GraphNode& node) {
  switch (node.kind) {
    case GraphNode::Kind::Input:
      out << "input \"" << node.name << "\" ";
      write_meta(out, node.outputs[0]);
      return;
    case GraphNode::Kind::Constant:
      out << "constant ";
      write_meta(out, node.outputs[0]);
      if (!node.data->bytes().empty()) out << ' ';
      write_hex(out, node.data->bytes());
      return;
    case GraphNode::Kind::Op:
      write_op(out, node);
      return;
  }
}

}  // namespace

std::string graph_to_text(const GraphImpl& graph) {
  std::ostringstream out;
  out << kGraphHeader << '\n';
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    out << '%' << i << " = ";
    write_node(out, graph.nodes[i]);
    out << '\n';
  }
  for (const GraphOutput& output : graph.outputs) {
    out << "output \"" << output.name << "\" ";
    write_ref(out, output.value);
    out << '\n';
  }
  return out.str();
}

}  // namespace ember::detail
