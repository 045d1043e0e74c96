// ONNX export of graphs recorded on the capture device (ember/graph.h,
// docs/backends/capture.md), and ONNX import (docs/onnx.md): the standard model format that
// onnxruntime, PyTorch and Burn read and write. Built where Debian's libonnx-dev (the ONNX
// schema's generated protobuf classes) is installed; without it the functions throw ConfigError
// naming the package.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ember/graph.h"
#include "ember/record/safetensors.h"
#include "ember/tensor_data.h"

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
/// ONNX node or a few (layer_norm's fused op as LayerNormalization; the other fused row ops, as
/// rms_norm's, cross_entropy's and the gradient ops, as their composites), and each output an
/// Identity node of the output's name.
/// InvalidArgument "[onnx::to_onnx] ..." naming an op (and its node) that has no ONNX form here,
/// or an opset out of range.
std::string to_onnx(const Graph& graph, const ExportOptions& options = {});
/// to_onnx written to path, atomically.
void save_onnx(const Graph& graph, const std::filesystem::path& path,
               const ExportOptions& options = {});

/// A serialized TensorProto (ONNX's test data files, input_0.pb ...) as TensorData, every field
/// checked as an initializer's is. InvalidArgument "[onnx::parse_tensor] ...".
TensorData parse_tensor(std::span<const std::byte> bytes);
/// parse_tensor of path's contents.
TensorData load_tensor(const std::filesystem::path& path);

/// An input or output of an ONNX model: its name, dtype, and dims (nullopt: a symbolic or
/// unknown dim, taken from the tensor given to Model::run or Model::to_graph).
struct ValueInfo {
  std::string name;
  DType dtype;
  std::vector<std::optional<int64_t>> dims;
};

/// How many nodes of one op type a model holds, and whether ember imports that op.
struct OpCount {
  std::string op_type;  ///< "Conv"; "domain::Op" for a domain other than ONNX's own
  std::size_t count = 0;
  bool supported = false;
};

}  // namespace ember::onnx

namespace ember::detail {
struct OnnxModel;  // src/graph/onnx/onnx_model.h
}

namespace ember::onnx {

/// An ONNX model (opset 13 or newer) read and checked, ready to build as an ember::Graph and run
/// on any device. Reading treats the file as untrusted: every field is checked before it is used
/// (tensor dims against their data, names defined before use, types), and a model whose nodes
/// include ops ember cannot run is refused before anything runs, naming every such op type and
/// its nodes. Errors are InvalidArgument "[onnx::Model] ...". Immutable and cheap to copy.
class Model {
 public:
  /// Reads a serialized ModelProto. External data (weights in other files) is refused: save the
  /// model with its weights inside.
  static Model parse(std::span<const std::byte> bytes);
  /// parse of path's contents; errors name the path.
  static Model load(const std::filesystem::path& path);

  /// The default domain's opset the model imports.
  int64_t opset() const;
  /// The graph's inputs that are not initializers, in the order run takes them.
  std::vector<ValueInfo> inputs() const;
  std::vector<ValueInfo> outputs() const;
  /// The weights: each initializer by its name, in the model's order (ready for
  /// record::save_safetensors as a Record's tensors).
  const std::vector<record::NamedData>& initializers() const;
  /// Every op type of the graph's nodes (those of its graph attributes included), sorted by
  /// name, with its count.
  std::vector<OpCount> op_counts() const;

  /// The model as an ember graph, for inputs of these shapes (one per inputs(), matching its
  /// known dims): its placeholders are the model's inputs, its constants the initializers, and
  /// its outputs the model's. Values an op needs while the graph is built (a Reshape's shape, a
  /// Slice's starts, a Resize's scales, ...) must come from initializers, Constant nodes or
  /// Shape, or be the values of inputs given in known (one per input where given): an op may
  /// read those, and integer, bool and rank-0 ones are computed with while the graph is built
  /// (shapes computed from them become constants). ONNX's rank-0 tensors are ember tensors of
  /// shape [1] in the graph.
  Graph to_graph(const std::vector<Shape>& input_shapes,
                 const std::vector<std::optional<TensorData>>& known = {}) const;
  /// Runs the model on device: to_graph for these inputs' shapes, each input's values given as
  /// known, then Graph::replay on device (its fusion included). Returns one
  /// tensor per output, with ONNX's shape (rank 0 included), read back to the host.
  std::vector<TensorData> run(const Device& device, const std::vector<TensorData>& inputs) const;

  explicit Model(std::shared_ptr<const detail::OnnxModel> impl) : impl_(std::move(impl)) {}
  const detail::OnnxModel& impl() const { return *impl_; }

 private:
  std::shared_ptr<const detail::OnnxModel> impl_;
};

}  // namespace ember::onnx
