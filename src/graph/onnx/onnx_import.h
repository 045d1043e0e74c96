// Building an ember graph from a checked ONNX model (onnx_import.cpp): each node's importer
// (onnx_node.h) run on the capture device, or on ndarray where its inputs are known.
#pragma once

#include <optional>
#include <vector>

#include "ember/graph.h"
#include "ember/shape.h"
#include "ember/tensor_data.h"
#include "graph/onnx/onnx_model.h"

namespace ember::detail {

/// How deep graph attributes may nest (a branch in a loop's body in ...): deeper ones are
/// refused when built, and not searched for ops.
inline constexpr std::size_t kMaxGraphDepth = 16;

struct ImportedGraph {
  Graph graph;
  std::vector<bool> scalar_outputs;  ///< outputs of rank 0 in ONNX (shape [1] in the graph)
};

/// The op types of model's nodes that ember does not import, each with its nodes' labels;
/// empty when every node is supported.
std::vector<std::pair<std::string, std::vector<std::string>>> unsupported_ops(
    const OnnxModel& model);

/// model as a graph for inputs of these shapes (ONNX's: rank 0 allowed), known values of some
/// inputs where given. InvalidArgument "[onnx] ..." naming the node that cannot be built.
ImportedGraph import_graph(const OnnxModel& model, const std::vector<Shape>& input_shapes,
                           const std::vector<std::optional<TensorData>>& known);

}  // namespace ember::detail
