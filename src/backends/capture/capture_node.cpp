#include "backends/capture/capture_node.h"

#include <atomic>
#include <utility>

namespace ember::backend::capture {
namespace {

uint64_t next_sequence() {
  static std::atomic<uint64_t> counter{0};
  return counter.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

Node::Node(Kind node_kind, ir::OutputMetas metas)
    : kind(node_kind), sequence(next_sequence()), outputs(std::move(metas)) {}

Node::~Node() {
  std::vector<Value> pending = std::move(inputs);
  while (!pending.empty()) {
    Value value = std::move(pending.back());
    pending.pop_back();
    // The last owner takes the node's inputs over before the node dies, so its destructor finds
    // none and does not recurse.
    if (value.node.use_count() == 1) {
      for (Value& input : value.node->inputs)
        pending.push_back(std::move(input));
      value.node->inputs.clear();
    }
  }
}

BufferPtr make_input(std::string name, const ir::TensorMeta& meta) {
  ir::OutputMetas metas;
  metas.push_back(meta);
  auto node = std::make_shared<Node>(Node::Kind::Input, std::move(metas));
  node->name = std::move(name);
  return std::make_shared<CaptureBuffer>(Value{std::move(node), 0});
}

}  // namespace ember::backend::capture
