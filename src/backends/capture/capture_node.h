// What a tensor of the capture device is: a value of a node of the recorded graph, never
// elements. A node is a placeholder (an input of the graph the user names), a constant (host data
// uploaded to the device) or an ir op applied to earlier nodes' values. Nodes hold their inputs,
// so a tensor keeps alive exactly the part of the graph that computes it, and a graph is read
// back from the tensors it ends at (src/graph/trace.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "ember/tensor_data.h"
#include "ir/ops.h"

namespace ember::backend::capture {

struct Node;

/// Output `output` of node.
struct Value {
  std::shared_ptr<const Node> node;
  uint32_t output = 0;
};

struct Node {
  enum class Kind : uint8_t { Input, Constant, Op };

  Node(Kind kind, ir::OutputMetas outputs);
  /// Frees a chain of nodes held only through each other iteratively: a recorded training loop
  /// is a chain thousands of nodes deep, which a recursive release would overflow the stack on.
  ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  Kind kind;
  /// Creation order, process-wide: a node's inputs were made before it, so sorting by it orders
  /// a graph topologically.
  uint64_t sequence;
  std::string name;                ///< Input: the name the user gave
  std::optional<TensorData> data;  ///< Constant: its values
  std::optional<ir::Op> op;        ///< Op: what ran
  /// Op: its operands. Mutable only so that the destructor can take them apart.
  mutable std::vector<Value> inputs;
  ir::OutputMetas outputs;
};

/// A capture tensor's storage: which node value it is.
class CaptureBuffer final : public Buffer {
 public:
  explicit CaptureBuffer(Value value) : value_(std::move(value)) {}
  const Value& value() const { return value_; }

 private:
  Value value_;
};

/// A buffer holding a new placeholder named name, of meta.
BufferPtr make_input(std::string name, const ir::TensorMeta& meta);

}  // namespace ember::backend::capture
