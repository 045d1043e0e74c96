// ONNX export of graphs recorded on the capture device (ember/graph.h,
// docs/backends/capture.md): the standard model format that onnxruntime, PyTorch and Burn read.
// Built where Debian's libonnx-dev (the ONNX schema's generated protobuf classes) is installed;
// without it the functions throw ConfigError naming the package.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "ember/graph.h"

namespace ember::onnx {

struct ExportOptions {
  /// The default domain's opset the model declares: 17 to 21.
  int64_t opset = 17;
  /// Dim 0 of every input (they must share it), and of every value computed from one (but by a
  /// reduction over dim 0), is written as the symbolic dim "batch": the model then runs on any
  /// batch size. A reshape of such a value leaves its dim 0 to ONNX (-1), which is right where
  /// the batch stays in dim 0 ([B, L, D] to [B * L, D] and back), not where it moves elsewhere.
  bool dynamic_batch = false;
  /// The model's graph name.
  std::string graph_name = "ember";
};

/// graph as a serialized ONNX ModelProto: placeholders become the graph's inputs, constants its
/// initializers (the weights of a model traced with its parameters uploaded), each ir op one
/// ONNX node or a few, and each output an Identity node of the output's name.
/// InvalidArgument "[onnx::to_onnx] ..." naming an op (and its node) that has no ONNX form here,
/// or an opset out of range.
std::string to_onnx(const Graph& graph, const ExportOptions& options = {});
/// to_onnx written to path, atomically.
void save_onnx(const Graph& graph, const std::filesystem::path& path,
               const ExportOptions& options = {});

}  // namespace ember::onnx
