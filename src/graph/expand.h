// The fused row ops of a graph (ir/fused_rows.h) run as themselves or as their composites
// (tensor/fused_row_composites.h): the choice replay makes per op, and a graph with the ops its
// consumer has no form for expanded (the ONNX export).
#pragma once

#include <functional>
#include <vector>

#include "ember/graph.h"
#include "ember/tensor_ops.h"
#include "ir/ops.h"

namespace ember::detail {

/// Whether a fused row op of a replayed graph runs as itself (true) or as its composite, given
/// the operands it gets.
using RunsFused = std::function<bool(const ir::Op& op, const ops::Handles& operands)>;

/// Graph::replay, with runs_fused deciding how each fused row op runs.
std::vector<TensorHandle> replay(const Graph& graph, const Device& device,
                                 const std::vector<TensorHandle>& inputs,
                                 const RunsFused& runs_fused);

/// graph with every fused row op that keep says no to replaced by its composite (the graph
/// replayed on the capture device and traced again, inputs and output names kept); graph itself
/// when keep says yes to all of them.
Graph with_composites(const Graph& graph, const std::function<bool(const ir::Op&)>& keep);

}  // namespace ember::detail
