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

namespace ember::detail {

/// An ONNX element type of dtype.
int32_t onnx_type(DType dtype);

class OnnxWriter {
 public:
  OnnxWriter(::onnx::GraphProto& graph, const onnx::ExportOptions& options, int64_t batch)
      : graph_(graph), options_(options), batch_(batch) {}

  const onnx::ExportOptions& options() const { return options_; }
  /// The inputs' dim 0 when the batch is dynamic, else -1.
  int64_t batch() const { return options_.dynamic_batch ? batch_ : -1; }

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
  int64_t batch_;
  int64_t next_ = 0;
};

/// Attribute setters.
void set_int(::onnx::NodeProto& node, std::string_view name, int64_t value);
void set_float(::onnx::NodeProto& node, std::string_view name, double value);
void set_ints(::onnx::NodeProto& node, std::string_view name, std::span<const int64_t> values);

/// One op node's names: its operands' values and the values its outputs become.
struct OnnxOpNames {
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
};

/// Writes node (an op) as ONNX nodes. used[k] says whether output k is read by anything.
/// InvalidArgument "[onnx::to_onnx] ..." when it has no ONNX form here.
void write_onnx_op(OnnxWriter& writer, const GraphImpl& graph, std::size_t index,
                   const OnnxOpNames& names, const std::vector<bool>& used);

}  // namespace ember::detail
