// Fuzzes ONNX import past the reader (onnx_model_fuzz.cpp fuzzes the reader alone): a model
// that reads, with static small inputs, is built as an ember graph (every node through its
// importer, on the capture device, known values folded on ndarray) with inputs of a fixed
// pattern given as known, as Model::run builds it; a small graph is then replayed on ndarray.
// Every refusal must be an ember::Error: any other exception, a sanitizer's report or a timeout
// is a defect.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <thread>
#include <vector>

#include "ember/onnx.h"
#include "ember/tensor_ops.h"
#include "fuzz_support.h"
#include "graph/graph_impl.h"

namespace {

using ember::Shape;
using ember::TensorData;

/// The largest input a model's run is given (elements), and its largest dim.
constexpr int64_t kMaxInputElements = 4096;
constexpr int64_t kMaxInputDim = 256;
/// The largest graph replayed: its nodes, and every value of it at once (bytes).
constexpr std::size_t kMaxReplayedNodes = 4096;
constexpr int64_t kMaxReplayedBytes = int64_t{64} << 20;

/// Inputs for the model's inputs: symbolic dims 2, values -5 .. 5 in a fixed pattern in each
/// input's dtype; nullopt when an input is larger than the bounds above.
std::optional<std::vector<TensorData>> small_inputs(const ember::onnx::Model& model) {
  std::vector<TensorData> inputs;
  for (const ember::onnx::ValueInfo& info : model.inputs()) {
    std::vector<int64_t> dims;
    int64_t elements = 1;
    for (const std::optional<int64_t>& dim : info.dims) {
      dims.push_back(dim.value_or(2));
      if (dims.back() > kMaxInputDim) return std::nullopt;
      elements *= dims.back();
    }
    if (elements > kMaxInputElements) return std::nullopt;
    std::vector<double> values(static_cast<std::size_t>(elements));
    for (std::size_t i = 0; i < values.size(); ++i)
      values[i] = static_cast<double>(i * 7 % 11) - 5;
    inputs.emplace_back(values, Shape(dims), info.dtype);
  }
  return inputs;
}

/// Whether graph is small enough to replay: few nodes, and all its values at once within the
/// byte bound (so no replay can allocate past it).
bool replayable(const ember::Graph& graph) {
  const ember::detail::GraphImpl& impl = graph.impl();
  if (impl.nodes.size() > kMaxReplayedNodes) return false;
  int64_t bytes = 0;
  for (const ember::detail::GraphNode& node : impl.nodes) {
    for (const ember::ir::TensorMeta& meta : node.outputs) {
      bytes += meta.shape.num_elements() * static_cast<int64_t>(ember::dtype_size(meta.dtype));
      if (bytes > kMaxReplayedBytes) return false;
    }
  }
  return true;
}

/// Builds the model for inputs (given as known, as Model::run does) and replays a small graph on
/// ndarray.
void build_and_run(const ember::onnx::Model& model, const std::vector<TensorData>& inputs) {
  std::vector<Shape> shapes;
  std::vector<std::optional<TensorData>> known;
  for (const TensorData& input : inputs) {
    shapes.push_back(input.shape());
    known.emplace_back(input);
  }
  const ember::Graph graph = model.to_graph(shapes, known);
  if (!replayable(graph)) return;
  const ember::Device device = ember::Device::ndarray();
  std::vector<ember::TensorHandle> handles;
  for (const TensorData& input : inputs) {
    // The graph's placeholders have rank >= 1: a rank-0 input is [1] there.
    const TensorData data =
        input.shape().rank() == 0
            ? TensorData(std::vector<std::byte>(input.bytes().begin(), input.bytes().end()),
                         Shape{1}, input.dtype())
            : input;
    handles.push_back(ember::ops::from_data(data, device, ember::kind_of(data.dtype())));
  }
  for (const ember::TensorHandle& output : graph.replay(device, handles))
    ember::ops::into_data(output);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const auto model = ember::fuzz::parsed_or_refused(
      [&] { return ember::onnx::Model::parse(ember::fuzz::input_bytes(data, size)); });
  if (!model) return 0;
  const std::optional<std::vector<TensorData>> inputs = small_inputs(*model);
  if (!inputs) return 0;
  // On a thread of its own: the blocks a thread keeps for reuse (core/recycled.h,
  // core/thread_kept.h) are freed when it ends, not counted as a leak of this input. Any
  // exception but an ember::Error escapes the thread's function, and std::terminate crashes.
  std::thread import([&] {
    try {
      build_and_run(*model, *inputs);
    } catch (const ember::Error&) {
      // A refusal: what ember promises for a model it cannot build or run.
    }
  });
  import.join();
  return 0;
}
