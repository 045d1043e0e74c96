// An ONNX model read and checked (ember/onnx.h's Model): the protobuf message, and what was
// decoded from it once every field it uses was checked. onnx_model.cpp reads and checks,
// onnx_tensor.cpp decodes tensors, onnx_attributes.cpp reads a node's attributes; none of them
// touches tensors of a device, so the fuzz target links them alone.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ember/onnx.h"
#include "ember/record/safetensors.h"
#include "ember/tensor_data.h"

namespace ember::detail {

struct OnnxModel {
  ::onnx::ModelProto proto;  ///< initializers' bytes cleared once decoded
  int64_t opset = 0;         ///< the default domain's
  std::vector<onnx::ValueInfo> inputs;
  std::vector<onnx::ValueInfo> outputs;
  std::vector<record::NamedData> initializers;
};

/// Reads and checks a serialized ModelProto. source names the bytes in messages.
/// InvalidArgument "[onnx::Model] SOURCE: ..." for anything malformed, hostile or unsupported
/// (an opset older than 13, external data, sparse initializers, a name used before it is
/// defined or defined twice, a tensor's dims against its data, an element type ember lacks).
OnnxModel parse_onnx_model(std::span<const std::byte> bytes, std::string_view source);

/// The ONNX element type of dtype.
int32_t onnx_type(DType dtype);
/// The ember dtype of an ONNX element type, or nullopt for one ember has no dtype for.
std::optional<DType> dtype_of_onnx(int32_t elem_type);
/// The name of an ONNX element type ("FLOAT", "STRING", "17" when unknown), for messages.
std::string onnx_type_name(int32_t elem_type);

/// tensor's values, after checking its data type, dims (>= 0, element count and bytes within
/// int64), and that its data (raw_data, or the typed field its type uses) holds exactly that
/// many elements. External data is refused. what names it in messages ("initializer 'w'").
/// InvalidArgument "[onnx::Model] WHAT: ...".
TensorData decode_tensor(const ::onnx::TensorProto& tensor, std::string_view what);

/// A node's name for messages: "node 'conv1' (Conv)", or "node #4 (Conv)" when unnamed.
std::string node_label(const ::onnx::NodeProto& node, std::size_t index);

/// The op type a node runs: its op_type, or "domain::op_type" outside ONNX's default domain.
std::string qualified_op_type(const ::onnx::NodeProto& node);

}  // namespace ember::detail
