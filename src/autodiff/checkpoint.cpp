#include "autodiff/checkpoint.h"

#include <string>
#include <vector>

#include "ember/error.h"
#include "tensor/for_autodiff.h"

namespace ember::autodiff {
namespace {

/// Whether x's producer can recompute x during backward, so a consumer need not keep it.
bool recomputed_in_backward(const TensorHandle& x) {
  const Node* producer = x.impl()->node.get();
  return producer != nullptr && !producer->is_leaf() && producer->rule->bound == Bound::Memory &&
         producer->recomputable && !producer->keeps_outputs;
}

std::vector<RetainedHandle> keep_all(std::span<const TensorHandle> values) {
  std::vector<RetainedHandle> kept;
  kept.reserve(values.size());
  for (const TensorHandle& value : values)
    kept.emplace_back(value);
  return kept;
}

/// Keeps each input a checkpointing node needs, except those its producer recomputes.
std::vector<RetainedHandle> keep_unless_recomputed(std::span<const TensorHandle> inputs) {
  std::vector<RetainedHandle> kept;
  kept.reserve(inputs.size());
  for (const TensorHandle& input : inputs) {
    kept.push_back(recomputed_in_backward(input) ? RetainedHandle() : RetainedHandle(input));
  }
  return kept;
}

[[noreturn]] void cannot_recompute(const Node& node) {
  // Unreachable by construction (recording keeps what backward reads); a bug, not a user error.
  throw ExecutionError("[backward] " + ir::name(*node.op) +
                       " kept neither its output nor its inputs");
}

}  // namespace

SavedValues save_for_backward(const BackwardRule& rule, GradientCheckpointingStrategy strategy,
                              std::span<const TensorHandle> inputs,
                              std::span<const TensorHandle> outputs) {
  SavedValues saved;
  if (strategy == GradientCheckpointingStrategy::Disabled) {
    if (rule.needs_inputs) saved.inputs = keep_all(inputs);
    if (rule.needs_outputs) saved.outputs = keep_all(outputs);
    return saved;
  }
  const bool memory_bound = rule.bound == Bound::Memory;
  if (rule.needs_inputs || memory_bound) saved.inputs = keep_unless_recomputed(inputs);
  if (!memory_bound) saved.outputs = keep_all(outputs);
  return saved;
}

TensorHandle Recomputer::input(const Node& node, std::size_t i) {
  if (node.saved.inputs.size() != node.inputs.size()) cannot_recompute(node);
  if (node.saved.inputs[i].defined()) return node.saved.inputs[i].handle();
  const Edge& edge = node.inputs[i];
  return output(*edge.node, edge.output);
}

TensorHandle Recomputer::output(const Node& node, std::size_t i) {
  if (std::optional<TensorHandle> value = available(node, i)) return *value;
  recompute(node);
  return recomputed_.at(&node)[i];
}

std::optional<TensorHandle> Recomputer::available(const Node& node, std::size_t i) const {
  if (node.keeps_outputs) return node.saved.outputs[i].handle();
  const auto it = recomputed_.find(&node);
  if (it != recomputed_.end()) return it->second[i];
  return std::nullopt;
}

void Recomputer::recompute(const Node& target) {
  std::vector<const Node*> stack{&target};
  while (!stack.empty()) {
    const Node& node = *stack.back();
    if (const Node* producer = missing_producer(node)) {
      stack.push_back(producer);
      continue;
    }
    ops::Handles inputs;
    inputs.reserve(node.inputs.size());
    for (std::size_t i = 0; i < node.inputs.size(); ++i)
      inputs.push_back(input(node, i));
    recomputed_[&node] = tensor::run(*node.op, inputs);
    stack.pop_back();
  }
}

const Node* Recomputer::missing_producer(const Node& node) const {
  if (node.saved.inputs.size() != node.inputs.size()) cannot_recompute(node);
  for (std::size_t i = 0; i < node.inputs.size(); ++i) {
    if (node.saved.inputs[i].defined()) continue;
    const Edge& edge = node.inputs[i];
    if (!available(*edge.node, edge.output)) return edge.node.get();
  }
  return nullptr;
}

}  // namespace ember::autodiff
