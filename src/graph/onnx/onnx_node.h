// What an ONNX op's importer sees of its node (onnx_import.cpp builds it): the node's inputs as
// ember tensors, its attributes read with their types checked, and where new tensors go.
//
// Note: ONNX has rank-0 tensors and ember's tensors have rank >= 1, so a rank-0 ONNX value is an
// ember tensor of shape [1] flagged `scalar`; importers keep the flag where ONNX's shape rules
// give rank 0 (an elementwise op of scalars, a full reduction without keepdims, ...).
//
// Note: a value is known while the graph is built when it is computed from initializers,
// Constant nodes and shapes alone: such nodes run on ndarray as the graph is built (folded), so
// a Reshape's shape or a Slice's starts can be read; every other value is a tensor of the capture
// device, and its node is recorded into the graph.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ember/device.h"
#include "ember/error.h"
#include "ember/tensor_data.h"
#include "ember/tensor_handle.h"
#include "ir/rules.h"

namespace ember::detail {

/// A value of the imported graph: an ember tensor (rank >= 1), and whether ONNX sees it as rank 0.
struct OnnxValue {
  TensorHandle tensor;
  bool scalar = false;
};

/// Builds a graph attribute's nodes (If's branches, Loop's and Scan's bodies) into the graph
/// being built, its inputs bound to the values given (the enclosing scopes' values stay
/// readable), and gives its outputs.
using GraphRunner =
    std::function<std::vector<OnnxValue>(const ::onnx::GraphProto&, const std::vector<OnnxValue>&)>;

class OnnxNode {
 public:
  /// known[i]: input i's values on ndarray, where they can be read while the graph is built.
  OnnxNode(const ::onnx::NodeProto& proto, std::string label, int64_t opset,
           std::vector<std::optional<OnnxValue>> inputs,
           std::vector<std::optional<TensorHandle>> known, Device device, GraphRunner runner = {})
      : proto_(proto),
        label_(std::move(label)),
        opset_(opset),
        inputs_(std::move(inputs)),
        known_(std::move(known)),
        device_(std::move(device)),
        runner_(std::move(runner)) {}

  const ::onnx::NodeProto& proto() const { return proto_; }
  /// "node 'conv1' (Conv)", for messages.
  const std::string& label() const { return label_; }
  int64_t opset() const { return opset_; }
  /// The device the node runs on: ndarray when every input is known, else capture.
  const Device& device() const { return device_; }

  /// How many inputs the node lists (omitted optional ones included).
  std::size_t input_count() const { return inputs_.size(); }
  /// Whether input i is given (listed and not omitted).
  bool has(std::size_t i) const { return i < inputs_.size() && inputs_[i].has_value(); }
  /// Input i; InvalidArgument when it is not given.
  const OnnxValue& input(std::size_t i) const;
  const TensorHandle& tensor(std::size_t i) const { return input(i).tensor; }
  /// The values of input i, which must be known while the graph is built (see above).
  TensorData known(std::size_t i, std::string_view what) const;
  /// known(i) as integers (any Int dtype).
  std::vector<int64_t> known_ints(std::size_t i, std::string_view what) const;
  /// known(i)'s one value (any dtype) as a double; InvalidArgument unless it holds one.
  double known_scalar(std::size_t i, std::string_view what) const;

  /// Attributes by name; the default when absent; InvalidArgument for another type.
  bool has_attribute(std::string_view name) const { return find(name) != nullptr; }
  int64_t attr_int(std::string_view name, int64_t fallback) const;
  std::optional<int64_t> attr_int(std::string_view name) const;
  float attr_float(std::string_view name, float fallback) const;
  std::optional<std::vector<int64_t>> attr_ints(std::string_view name) const;
  std::optional<std::vector<float>> attr_floats(std::string_view name) const;
  std::string attr_string(std::string_view name, std::string_view fallback) const;
  std::optional<TensorData> attr_tensor(std::string_view name) const;
  /// The graph attribute name; InvalidArgument when absent or of another type.
  const ::onnx::GraphProto& attr_graph(std::string_view name) const;
  /// The graph attribute name built with these inputs (as many as it declares): its outputs.
  std::vector<OnnxValue> run_graph(std::string_view name,
                                   const std::vector<OnnxValue>& inputs) const;

  /// InvalidArgument "[onnx] LABEL: ...".
  template <typename... Parts>
  [[noreturn]] void fail(const Parts&... parts) const {
    throw InvalidArgument(ir::rules::concat("[onnx] ", label_, ": ", parts...));
  }

 private:
  const ::onnx::AttributeProto* find(std::string_view name) const;
  const ::onnx::AttributeProto& typed(std::string_view name,
                                      ::onnx::AttributeProto::AttributeType type) const;

  const ::onnx::NodeProto& proto_;
  std::string label_;
  int64_t opset_;
  std::vector<std::optional<OnnxValue>> inputs_;
  std::vector<std::optional<TensorHandle>> known_;
  Device device_;
  GraphRunner runner_;
};

/// An op's importer: the node's outputs, in order (fewer than it lists when the rest are never
/// produced, which the caller refuses if anything reads them).
using OnnxImporter = std::vector<OnnxValue> (*)(const OnnxNode& node);
using OnnxImporters = std::unordered_map<std::string, OnnxImporter>;

/// Every op ember imports, by ONNX op type: the default domain's by name, another domain's as
/// "domain::name" (qualified_op_type).
const OnnxImporters& onnx_importers();

/// Each family's importers, added to the table (onnx_import_*.cpp).
void add_elementwise_importers(OnnxImporters& table);
void add_layout_importers(OnnxImporters& table);
void add_pad_importers(OnnxImporters& table);
void add_gather_importers(OnnxImporters& table);
void add_constant_importers(OnnxImporters& table);
void add_reduce_importers(OnnxImporters& table);
void add_nn_importers(OnnxImporters& table);
void add_conv_importers(OnnxImporters& table);
void add_index_importers(OnnxImporters& table);
void add_loss_importers(OnnxImporters& table);
void add_resize_importers(OnnxImporters& table);
void add_attention_importers(OnnxImporters& table);
void add_bitshift_importers(OnnxImporters& table);
void add_quantize_importers(OnnxImporters& table);
void add_window_importers(OnnxImporters& table);
void add_nd_importers(OnnxImporters& table);
void add_einsum_importers(OnnxImporters& table);
void add_dft_importers(OnnxImporters& table);
void add_grid_sample_importers(OnnxImporters& table);
void add_unfold_importers(OnnxImporters& table);
void add_linear_attention_importers(OnnxImporters& table);
void add_recurrent_importers(OnnxImporters& table);
void add_control_importers(OnnxImporters& table);
void add_bitcast_importers(OnnxImporters& table);
void add_arc_importers(OnnxImporters& table);
void add_unique_importers(OnnxImporters& table);
void add_roi_align_importers(OnnxImporters& table);
void add_random_importers(OnnxImporters& table);
void add_image_importers(OnnxImporters& table);

/// Whether op_type draws random numbers (onnx_import_random.cpp): such a node is never computed
/// while the graph is built, so that every run draws anew from its device's generator.
bool draws_random(const std::string& op_type);

}  // namespace ember::detail
