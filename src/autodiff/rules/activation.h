// Backward rules of the neural-network activations (ir::Activation) and of softmax
// (ir::Softmax). backward_rule (registry.cpp) dispatches to them.
#pragma once

#include "autodiff/rule.h"
#include "ir/ops.h"

namespace ember::autodiff::rules {

/// The rule of op that its gradient column in the op table names: memory-bound (recomputed under
/// Balanced checkpointing), keeping the input. nullptr for an enumerator past the last activation.
const BackwardRule* activation_rule(const ir::Activation& op);
/// The rule of softmax and log-softmax: compute-bound, needs the output.
const BackwardRule* softmax_rule(const ir::Softmax& op);

}  // namespace ember::autodiff::rules
