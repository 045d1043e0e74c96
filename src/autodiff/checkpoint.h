// Gradient checkpointing: which values a node keeps for backward (at recording) and how a value
// that was not kept is recomputed (during backward).
//
// Disabled: a node keeps exactly the inputs / outputs its rule needs.
// Balanced: a compute-bound node keeps its outputs; a memory-bound node keeps none, and keeps
// its inputs instead so that it can re-run its op. An input is kept as a handle when it comes
// from a constant, a leaf or a node that cannot recompute it, and as a reference to its
// producing memory-bound node otherwise (no bytes: recomputed in backward).
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <unordered_map>

#include "autodiff/node.h"
#include "ember/tensor_ops.h"

namespace ember::autodiff {

/// What a node recording rule's op on inputs (which produced outputs) keeps under strategy.
SavedValues save_for_backward(const BackwardRule& rule, GradientCheckpointingStrategy strategy,
                              std::span<const TensorHandle> inputs,
                              std::span<const TensorHandle> outputs);

/// The values one backward pass reads: kept ones as they are, the others recomputed (each at
/// most once per pass) by re-running their node's op with recording off.
class Recomputer {
 public:
  /// Input i of node (node must keep its inputs).
  TensorHandle input(const Node& node, std::size_t i);
  /// Output i of node.
  TensorHandle output(const Node& node, std::size_t i);
  /// Drops node's recomputed outputs: in reverse topological order every reader of them has run.
  void forget(const Node& node) { recomputed_.erase(&node); }

 private:
  /// Re-runs node's op, and first those of the nodes it needs that were not kept (iteratively,
  /// so a long chain of memory-bound ops cannot overflow the stack).
  void recompute(const Node& node);
  /// A producer of node's inputs that must be recomputed before node, or null.
  const Node* missing_producer(const Node& node) const;
  /// The value of output i of node if kept or already recomputed.
  std::optional<TensorHandle> available(const Node& node, std::size_t i) const;

  std::unordered_map<const Node*, ops::Handles> recomputed_;
};

}  // namespace ember::autodiff
