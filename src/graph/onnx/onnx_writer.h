// Writing an ONNX GraphProto node by node (onnx_export.cpp walks the graph, onnx_ops.cpp
// writes each ir op): fresh value names, initializers, nodes and their attributes.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ember/onnx.h"
#include "ember/tensor_data.h"
#include "graph/graph_impl.h"
#include "graph/onnx/onnx_model.h"

namespace ember::detail {

class OnnxWriter {
 public:
  /// A writer of source into graph; with a dynamic batch, it finds which values carry the batch.
  OnnxWriter(::onnx::GraphProto& graph, const onnx::ExportOptions& options,
             const GraphImpl& source);

  const onnx::ExportOptions& options() const { return options_; }
  /// Whether value's dim 0 grows with the batch (a dynamic batch's inputs, and what ops make of
  /// them; onnx_batch.cpp): its dim 0 is then symbolic, and a reshape of it leaves dim 0 to ONNX.
  bool batched(const ValueRef& value) const {
    return !batched_.empty() && batched_[value.node][value.output];
  }

  /// A name not used yet, starting with base.
  std::string fresh(std::string_view base);
  /// A new initializer holding data; returns its name.
  std::string initializer(const TensorData& data);
  /// A new rank-1 int64 initializer (shapes, axes, pads of the ops that take them as inputs).
  std::string int64s(std::span<const int64_t> values);
  /// A new rank-0 initializer of value in dtype.
  std::string scalar(const Scalar& value, DType dtype);
  /// Appends a node of op_type; returns it for its attributes.
  ::onnx::NodeProto& node(std::string_view op_type, std::vector<std::string> inputs,
                          std::vector<std::string> outputs);

 private:
  ::onnx::GraphProto& graph_;
  const onnx::ExportOptions& options_;
  std::vector<std::vector<bool>> batched_;
  int64_t next_ = 0;
};

/// For each output of each node of graph, whether its dim 0 is the batch or grows with it: the
/// inputs' dim 0 (InvalidArgument "[onnx::to_onnx] ..." unless every input of rank 1 or more has
/// the same), and every op output of rank 1 or more with a batched operand, but for a reduction
/// over dim 0 or everything.
std::vector<std::vector<bool>> batched_values(const GraphImpl& graph);

/// Attribute setters.
void set_int(::onnx::NodeProto& node, std::string_view name, int64_t value);
void set_float(::onnx::NodeProto& node, std::string_view name, double value);
void set_ints(::onnx::NodeProto& node, std::string_view name, std::span<const int64_t> values);
void set_string(::onnx::NodeProto& node, std::string_view name, std::string_view value);

/// One op node's names: its operands' values and the values its outputs become.
struct OnnxOpNames {
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
};

/// Whether the fused row op op (ir/fused_rows.h) is written as ONNX nodes of its own: LayerNorm
/// as LayerNormalization, but for rms_norm (an ONNX op from opset 23 only). to_onnx writes the
/// others as their composites (graph/expand.h), which ONNX runs.
bool written_as_onnx(const ir::Op& op);

/// Writes node (an op) as ONNX nodes. used[k] says whether output k is read by anything.
/// InvalidArgument "[onnx::to_onnx] ..." when it has no ONNX form here.
void write_onnx_op(OnnxWriter& writer, const GraphImpl& graph, std::size_t index,
                   const OnnxOpNames& names, const std::vector<bool>& used);

}  // namespace ember::detail
