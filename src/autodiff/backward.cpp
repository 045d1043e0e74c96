// backward: walks the graph from the root in reverse topological order, turning each node's
// output gradients into its inputs' with the node's rule, and hands leaf gradients to Gradients.
#include <sstream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "autodiff/checkpoint.h"
#include "autodiff/node.h"
#include "autodiff/tape.h"
#include "tensor/for_autodiff.h"

namespace ember::autodiff {
namespace {

/// The nodes reachable from root, each after every node that consumes its outputs (root first).
/// Iterative depth-first search, so a deep graph cannot overflow the stack.
std::vector<Node*> reverse_topological(Node& root) {
  struct Frame {
    Node* node;
    std::size_t next_input;
  };
  std::vector<Node*> post_order;
  std::unordered_set<const Node*> visited{&root};
  std::vector<Frame> stack{{&root, 0}};
  while (!stack.empty()) {
    Frame& frame = stack.back();
    if (frame.node->released.load(std::memory_order_acquire)) {
      tensor::fail("backward", "the graph was already released by a previous backward()");
    }
    if (frame.next_input == frame.node->inputs.size()) {
      post_order.push_back(frame.node);
      stack.pop_back();
      continue;
    }
    Node* parent = frame.node->inputs[frame.next_input++].node.get();
    if (parent != nullptr && visited.insert(parent).second) stack.push_back({parent, 0});
  }
  return {post_order.rbegin(), post_order.rend()};
}

/// Adds grad to slot (which may be undefined: no gradient yet).
void accumulate(TensorHandle& slot, TensorHandle grad) {
  slot = slot.defined() ? ops::add(slot, grad) : std::move(grad);
}

/// A rule that breaks its contract would corrupt every gradient after it: stop there.
void check_gradient(const Node& node, std::size_t input, const TensorHandle& grad) {
  const ir::TensorMeta& expected = node.input_metas[input];
  const ir::TensorMeta& got = grad.impl()->meta;
  if (got == expected) return;
  std::ostringstream message;
  message << "[backward] the rule of " << ir::name(*node.op) << " returned a gradient " << got.shape
          << " " << got.dtype << " for input " << input << " of " << expected.shape << " "
          << expected.dtype;
  throw ExecutionError(message.str());
}

/// Releases every node of one backward pass when the pass ends, even by an exception: a graph
/// is walked once.
class ReleaseOnExit {
 public:
  explicit ReleaseOnExit(const std::vector<Node*>& nodes) : nodes_(nodes) {}
  ~ReleaseOnExit() {
    for (Node* node : nodes_) {
      if (!node->is_leaf()) node->release();
    }
  }
  ReleaseOnExit(const ReleaseOnExit&) = delete;
  ReleaseOnExit& operator=(const ReleaseOnExit&) = delete;

 private:
  const std::vector<Node*>& nodes_;
};

/// One backward pass: the pending output gradients of every node not yet run.
class Pass {
 public:
  explicit Pass(const GradientHook* on_final) : on_final_(on_final) {}

  Gradients run(const TensorHandle& root) {
    Node& root_node = *root.impl()->node;
    const std::vector<Node*> order = reverse_topological(root_node);
    const NoGradGuard no_grad;  // gradients are constants: first order only
    // Backward ops run in the dtypes of the forward ones; only the forward pass is autocast.
    const tensor::AutocastSuspended no_autocast;
    const ReleaseOnExit release(order);
    pending_[&root_node].resize(root_node.output_metas.size());
    pending_[&root_node][root.impl()->output] = ops::full_like(root, 1.0);
    for (Node* node : order) {
      step(*node);
      recomputer_.forget(*node);
      // Free what the node kept now rather than at the end: backward's peak memory drops as it
      // goes, as the forward pass's grew.
      if (!node->is_leaf()) node->release();
    }
    return std::move(gradients_);
  }

 private:
  void step(const Node& node) {
    const auto it = pending_.find(&node);
    if (it == pending_.end()) return;  // no gradient reached any of its outputs
    const ops::Handles output_grads = std::move(it->second);
    pending_.erase(it);
    if (node.is_leaf()) {
      // A leaf runs after every node that consumes it: its gradient is final here.
      gradients_.accumulate(node.id, output_grads.front());
      if (on_final_ != nullptr && *on_final_) (*on_final_)(node.id, output_grads.front());
      return;
    }
    const ops::Handles input_grads = node.rule->backward(arguments(node, output_grads));
    if (input_grads.size() != node.inputs.size()) {
      throw ExecutionError("[backward] the rule of " + ir::name(*node.op) + " returned " +
                           std::to_string(input_grads.size()) + " gradients for " +
                           std::to_string(node.inputs.size()) + " inputs");
    }
    for (std::size_t i = 0; i < input_grads.size(); ++i)
      propagate(node, i, input_grads[i]);
  }

  BackwardArgs arguments(const Node& node, const ops::Handles& output_grads) {
    inputs_.assign(node.inputs.size(), TensorHandle());
    outputs_.assign(node.output_metas.size(), TensorHandle());
    if (node.rule->needs_inputs) {
      for (std::size_t i = 0; i < inputs_.size(); ++i)
        inputs_[i] = recomputer_.input(node, i);
    }
    if (node.rule->needs_outputs) {
      for (std::size_t i = 0; i < outputs_.size(); ++i)
        outputs_[i] = recomputer_.output(node, i);
    }
    sources_.clear();
    for (const Edge& edge : node.inputs)
      sources_.push_back(edge.node != nullptr && edge.node->op ? &*edge.node->op : nullptr);
    return BackwardArgs{*node.op, node.input_metas, inputs_, outputs_, output_grads, sources_};
  }

  void propagate(const Node& node, std::size_t input, const TensorHandle& grad) {
    const Edge& edge = node.inputs[input];
    if (edge.node == nullptr || !grad.defined()) return;  // a constant, or no gradient
    check_gradient(node, input, grad);
    ops::Handles& slots = pending_[edge.node.get()];
    slots.resize(edge.node->output_metas.size());
    accumulate(slots[edge.output], grad);
  }

  const GradientHook* on_final_;
  std::unordered_map<const Node*, ops::Handles> pending_;
  Recomputer recomputer_;
  Gradients gradients_;
  // Storage the BackwardArgs spans point into.
  ops::Handles inputs_;
  ops::Handles outputs_;
  std::vector<const ir::Op*> sources_;
};

}  // namespace

Gradients backward(const TensorHandle& x, const GradientHook* on_final) {
  const detail::TensorImpl& impl = tensor::impl_of(x, "backward");
  if (impl.node == nullptr) {
    tensor::fail("backward", "tensor is not tracked: its device (", impl.device,
                 ") has autodiff off, or it is neither a leaf that requires grad nor computed "
                 "from one (gradients are constants: first order only)");
  }
  return Pass(on_final).run(x);
}

}  // namespace ember::autodiff
