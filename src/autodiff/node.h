// Node: one recorded op (or one leaf that requires grad) of an autodiff graph.
//
// Note: ownership. A tracked tensor owns its node, and a node owns the nodes that produced its
// inputs, so a graph lives exactly as long as some tensor computed by it. Saved values are
// node-less handles (RetainedHandle), so nothing points back up the graph: no reference cycles.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "autodiff/retained_bytes.h"
#include "autodiff/rule.h"
#include "ember/device.h"
#include "ir/ops.h"

namespace ember::autodiff {

struct Node;

/// Where an op input came from: output `output` of `node`, or a constant when node is null.
struct Edge {
  std::shared_ptr<Node> node;
  uint32_t output = 0;
};

/// The values a node keeps for backward (see checkpoint.h for which ones).
struct SavedValues {
  /// Empty when backward needs no input; else one per input, where an undefined entry means
  /// "recompute it from the memory-bound node that produced it" (Balanced checkpointing).
  std::vector<RetainedHandle> inputs;
  /// Empty when the outputs are not kept (recomputed from the inputs when needed); else one per
  /// output.
  std::vector<RetainedHandle> outputs;
};

struct Node {
  /// A leaf: a tensor of meta that requires grad, on the autodiff device device.
  Node(Device device, ir::TensorMeta meta);
  /// A recorded op, run under device (whose checkpointing strategy chose saved).
  Node(Device device, ir::Op op, const BackwardRule& rule, std::vector<Edge> inputs,
       std::vector<ir::TensorMeta> input_metas, std::vector<ir::TensorMeta> output_metas,
       SavedValues saved);
  /// Frees the nodes only this one owns iteratively, so a deep graph cannot overflow the stack.
  ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  bool is_leaf() const { return rule == nullptr; }
  /// Drops the saved values and marks the node released (backward went through it).
  void release();

  /// Unique over the process; Gradients keys leaf gradients by it.
  const uint64_t id;
  const Device device;
  /// nullopt for a leaf.
  const std::optional<ir::Op> op;
  /// null for a leaf.
  const BackwardRule* const rule;
  /// One per op input. Not const only so that the destructor can take them.
  std::vector<Edge> inputs;
  const std::vector<ir::TensorMeta> input_metas;
  const std::vector<ir::TensorMeta> output_metas;
  SavedValues saved;
  /// Whether the node can re-run its op during backward: it has a source for every input. Fixed
  /// at construction, so recording may read it while another thread releases the node.
  const bool recomputable;
  /// Whether the outputs were kept (fixed at construction, like recomputable).
  const bool keeps_outputs;
  std::atomic<bool> released{false};
};

/// How many nodes are alive in the process (for tests: a graph is freed with its tensors).
int64_t live_nodes();

}  // namespace ember::autodiff
