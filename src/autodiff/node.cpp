#include "autodiff/node.h"

#include <utility>

namespace ember::autodiff {
namespace {

std::atomic<uint64_t> next_id{1};
std::atomic<int64_t> live{0};

}  // namespace

Node::Node(Device device, ir::TensorMeta meta)
    : id(next_id.fetch_add(1, std::memory_order_relaxed)),
      device(std::move(device)),
      rule(nullptr),
      output_metas{std::move(meta)},
      recomputable(false),
      keeps_outputs(false) {
  live.fetch_add(1, std::memory_order_relaxed);
}

Node::Node(Device device, ir::Op op, const BackwardRule& rule, std::vector<Edge> inputs,
           std::vector<ir::TensorMeta> input_metas, std::vector<ir::TensorMeta> output_metas,
           SavedValues saved)
    : id(next_id.fetch_add(1, std::memory_order_relaxed)),
      device(std::move(device)),
      op(std::move(op)),
      rule(&rule),
      inputs(std::move(inputs)),
      input_metas(std::move(input_metas)),
      output_metas(std::move(output_metas)),
      saved(std::move(saved)),
      recomputable(this->saved.inputs.size() == this->inputs.size()),
      keeps_outputs(!this->saved.outputs.empty()) {
  live.fetch_add(1, std::memory_order_relaxed);
}

Node::~Node() {
  // Note: a chain of N nodes would otherwise be destroyed by N nested destructor calls. Each
  // parent this node is the last owner of is emptied of its own parents before it dies, so every
  // destructor call here returns without recursing.
  std::vector<std::shared_ptr<Node>> pending;
  const auto take_parents = [&pending](Node& node) {
    for (Edge& edge : node.inputs) {
      if (edge.node) pending.push_back(std::move(edge.node));
    }
  };
  take_parents(*this);
  while (!pending.empty()) {
    std::shared_ptr<Node> node = std::move(pending.back());
    pending.pop_back();
    // use_count 1: no tensor, node or other thread can reach it any more.
    if (node.use_count() == 1) take_parents(*node);
  }
  live.fetch_sub(1, std::memory_order_relaxed);
}

void Node::release() {
  saved = SavedValues();
  released.store(true, std::memory_order_release);
}

int64_t live_nodes() {
  return live.load(std::memory_order_relaxed);
}

}  // namespace ember::autodiff
