// Graphs recorded on the capture device (Device::capture(), docs/capture.md). Tensors of that
// device are symbolic: they have a shape and a dtype, and every op run on them, backward passes
// of autodiff included, records an ir op instead of computing. A Graph is read back from the
// tensors it ends at; it can be printed, saved and loaded in a stable text form, simplified, and
// replayed on any device with new inputs (then running through that device's fusion).
//
//   Device capture = Device::capture();
//   Tensor<2> x(Graph::input("x", Shape({8, 4}), DType::F32, capture));
//   Tensor<2> y = activation::relu(x.matmul(w)) ;   // recorded
//   Graph graph = Graph::trace({x.handle()}, {y.handle()}, {"y"});
//   std::vector<TensorHandle> out = graph.replay(Device::cpu(), {real_x.handle()});
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "ember/device.h"
#include "ember/dtype.h"
#include "ember/shape.h"
#include "ember/tensor_handle.h"

namespace ember {

namespace detail {
struct GraphImpl;  // src/graph/graph_impl.h
}

/// An input or output of a graph: its name, shape and dtype.
struct GraphValue {
  std::string name;
  Shape shape;
  DType dtype;
};

/// What Graph::simplified removed.
struct SimplifyReport {
  std::size_t dead = 0;      ///< ops no output depends on
  std::size_t folded = 0;    ///< ops of constants, replaced by their computed value
  std::size_t repeated = 0;  ///< ops equal to an earlier one (same op, same operands)
};

/// A recorded computation: placeholders (inputs), constants, ir ops, and named outputs, in an
/// order where every op comes after its operands. Immutable and cheap to copy (shared).
class Graph {
 public:
  /// A placeholder of the graph: a new tensor of device (which must be the capture device) with
  /// shape and dtype and no values. name (printable ASCII, no '"' or '\') names the input in the
  /// graph's text and in messages. Locks the device's settings, as every tensor creation does.
  /// InvalidArgument "[Graph::input] ..." for another device or a bad name.
  static TensorHandle input(std::string name, const Shape& shape, DType dtype,
                            const Device& device);

  /// The graph computing outputs from inputs: every input a placeholder made by Graph::input, in
  /// the order replay takes them; every output a tensor of the capture device computed from
  /// them and from constants. output_names (empty: "output0", "output1", ...) name the outputs.
  /// InvalidArgument "[Graph::trace] ..." when an output depends on a placeholder not listed,
  /// an input is not a placeholder, or a tensor is not on the capture device.
  static Graph trace(const std::vector<TensorHandle>& inputs,
                     const std::vector<TensorHandle>& outputs,
                     std::vector<std::string> output_names = {});

  /// The inputs, in replay's order.
  std::vector<GraphValue> inputs() const;
  /// The outputs, in replay's order.
  std::vector<GraphValue> outputs() const;
  /// How many ir ops the graph holds (placeholders and constants not counted).
  std::size_t op_count() const;

  /// Runs the graph on device with inputs (one per input(), of its shape and dtype, on device):
  /// every op through the Tensor API's dispatch, as if the code that recorded it ran on device
  /// (its fusion, autodiff when an input is tracked; a fused row op such as layer_norm's runs
  /// fused where device's backend runs it, else as the composite eager code takes there). A
  /// Random op draws a fresh key from device's stream, as the op run eagerly would: replaying a
  /// training step draws new dropout masks each time. Returns one tensor per output.
  /// InvalidArgument "[Graph::replay] ..." for a wrong count, shape, dtype or device of inputs.
  std::vector<TensorHandle> replay(const Device& device,
                                   const std::vector<TensorHandle>& inputs) const;

  /// The same computation with dead ops removed, ops whose operands are all constants computed
  /// (on the reference device, ndarray; not random ops, nor ops without operands), and ops equal
  /// to an earlier one merged into it. report (when given) says how many of each went. Folding
  /// creates tensors on ndarray, which locks its settings as any tensor creation does.
  Graph simplified(SimplifyReport* report = nullptr) const;

  /// The graph as text: a header line, then one line per node ("%3 = add(%1, %2) f32 [2, 3]
  /// {...}"), constants' bytes in hex, then one line per output. The same graph always gives the
  /// same text, and from_text(to_text()) gives it back.
  std::string to_text() const;
  /// Parses to_text's form. InvalidArgument "[Graph::from_text] line N: ..." naming what is wrong;
  /// every op is checked by its shape and dtype rule as a recorded op is.
  static Graph from_text(std::string_view text);
  /// to_text written to path, atomically; InvalidArgument "[Graph::save] PATH: ..." when it
  /// cannot be written.
  void save(const std::filesystem::path& path) const;
  /// from_text of path's contents; InvalidArgument naming the path when unreadable or malformed.
  static Graph load(const std::filesystem::path& path);

  /// Prints to_text.
  friend std::ostream& operator<<(std::ostream& os, const Graph& graph);

  explicit Graph(std::shared_ptr<const detail::GraphImpl> impl) : impl_(std::move(impl)) {}
  const detail::GraphImpl& impl() const { return *impl_; }

 private:
  std::shared_ptr<const detail::GraphImpl> impl_;
};

}  // namespace ember
