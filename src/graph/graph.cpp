// The Graph class: its signature, and its text form in and out of strings and files.
#include <fstream>
#include <iterator>
#include <sstream>

#include "ember/error.h"
#include "ember/graph.h"
#include "ember/record/file_io.h"
#include "graph/graph_impl.h"
#include "graph/text_format.h"

namespace ember {

std::vector<GraphValue> Graph::inputs() const {
  std::vector<GraphValue> inputs;
  for (const detail::GraphNode& node : impl_->nodes) {
    if (node.kind == detail::GraphNode::Kind::Input)
      inputs.push_back({node.name, node.outputs[0].shape, node.outputs[0].dtype});
  }
  return inputs;
}

std::vector<GraphValue> Graph::outputs() const {
  std::vector<GraphValue> outputs;
  for (const detail::GraphOutput& output : impl_->outputs) {
    const ir::TensorMeta& meta = impl_->meta(output.value);
    outputs.push_back({output.name, meta.shape, meta.dtype});
  }
  return outputs;
}

std::size_t Graph::op_count() const {
  std::size_t count = 0;
  for (const detail::GraphNode& node : impl_->nodes)
    count += node.kind == detail::GraphNode::Kind::Op ? 1 : 0;
  return count;
}

std::string Graph::to_text() const {
  return detail::graph_to_text(*impl_);
}

Graph Graph::from_text(std::string_view text) {
  return Graph(std::make_shared<detail::GraphImpl>(detail::graph_from_text(text)));
}

void Graph::save(const std::filesystem::path& path) const {
  record::write_file_atomically(path, to_text(), "Graph::save");
}

Graph Graph::load(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw InvalidArgument("[Graph::load] " + path.string() + ": cannot be opened");
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  try {
    return from_text(text);
  } catch (const InvalidArgument& e) {
    throw InvalidArgument("[Graph::load] " + path.string() + ": " + e.what());
  }
}

std::ostream& operator<<(std::ostream& os, const Graph& graph) {
  return os << graph.to_text();
}

}  // namespace ember
