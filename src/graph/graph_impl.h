// A graph as data (ember/graph.h): nodes in an order where every op follows its operands, and
// the outputs. Everything in src/graph/ reads or builds this; only trace and replay touch tensors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ember/tensor_data.h"
#include "ir/ops.h"

namespace ember::detail {

/// Output `output` of node `node` (an index into GraphImpl::nodes).
struct ValueRef {
  std::size_t node = 0;
  uint32_t output = 0;
  friend bool operator==(const ValueRef&, const ValueRef&) = default;
};

struct GraphNode {
  enum class Kind : uint8_t { Input, Constant, Op };
  Kind kind = Kind::Op;
  std::string name;                ///< Input: the placeholder's name
  std::optional<TensorData> data;  ///< Constant: its values
  std::optional<ir::Op> op;        ///< Op
  std::vector<ValueRef> inputs;    ///< Op: its operands, each of an earlier node
  ir::OutputMetas outputs;         ///< one for an Input or Constant
};

struct GraphOutput {
  std::string name;
  ValueRef value;
};

struct GraphImpl {
  std::vector<GraphNode> nodes;
  std::vector<GraphOutput> outputs;

  const ir::TensorMeta& meta(const ValueRef& value) const {
    return nodes[value.node].outputs[value.output];
  }
};

}  // namespace ember::detail
