// Importers of ONNX's control flow, unrolled into the graph as it is built (ember's graphs have
// no branches or loops): If takes the branch its condition, known while building, picks; Loop
// builds its body once per iteration, its trip count and condition known while building; Scan
// builds its body once per step of the scanned inputs' length. The graph grows with the number
// of iterations, which is bounded.
#include "graph/onnx/onnx_import_util.h"

namespace ember::detail {
namespace {

/// The most iterations a Loop or Scan is unrolled to.
constexpr int64_t kMaxIterations = int64_t{1} << 16;

std::vector<OnnxValue> if_op(const OnnxNode& node) {
  const bool condition = node.known_scalar(0, "cond") != 0;
  return node.run_graph(condition ? "then_branch" : "else_branch", {});
}

/// A known scalar (Loop's iteration number and condition), so that what the body computes
/// from it is known too.
OnnxValue scalar_of(int64_t value, DType dtype) {
  return {ops::full(Shape{1}, value, TensorCreationOptions(Device::ndarray()).with_dtype(dtype),
                    kind_of(dtype)),
          true};
}

/// Per scan output, its values stacked along a new axis: [iterations, ...] (a scalar's, [n]).
TensorHandle stacked(const std::vector<OnnxValue>& values, int64_t axis) {
  std::vector<TensorHandle> tensors;
  for (const OnnxValue& v : values)
    tensors.push_back(v.tensor);
  if (values.front().scalar) return ops::cat(tensors, 0);
  return ops::stack(tensors, axis);
}

/// Loop: the body (iteration number, condition, carried values...) -> (condition, carried
/// values..., scan outputs...) run while the iteration is below M and the condition holds; the
/// final carried values, then each scan output's values stacked.
std::vector<OnnxValue> loop(const OnnxNode& node) {
  int64_t trips = kMaxIterations + 1;
  if (node.has(0)) trips = static_cast<int64_t>(node.known_scalar(0, "M"));
  if (!node.has(1) && trips > kMaxIterations)
    node.fail("a trip count of ", trips, " without a condition (at most ", kMaxIterations, ")");
  bool condition = !node.has(1) || node.known_scalar(1, "cond") != 0;
  const int body_outputs = node.attr_graph("body").output_size();
  std::vector<OnnxValue> carried;
  for (std::size_t i = 2; i < node.input_count(); ++i)
    carried.push_back(node.input(i));
  const auto scans = static_cast<std::size_t>(body_outputs) - 1 - carried.size();
  if (static_cast<std::size_t>(body_outputs) < 1 + carried.size())
    node.fail("the body gives ", body_outputs, " outputs for ", carried.size(), " carried values");
  std::vector<std::vector<OnnxValue>> scanned(scans);
  int64_t i = 0;
  for (; i < trips && condition; ++i) {
    if (i == kMaxIterations) node.fail("more than ", kMaxIterations, " iterations");
    std::vector<OnnxValue> inputs{scalar_of(i, DType::I64), scalar_of(1, DType::Bool)};
    inputs.insert(inputs.end(), carried.begin(), carried.end());
    std::vector<OnnxValue> out = node.run_graph("body", inputs);
    if (out[0].tensor.device() != Device::ndarray() && i + 1 < trips)
      node.fail("the body's condition must be known when the graph is built");
    condition = out[0].tensor.device() != Device::ndarray() ||
                ops::into_data(out[0].tensor).to_vector<double>()[0] != 0;
    carried.assign(out.begin() + 1, out.begin() + 1 + static_cast<std::ptrdiff_t>(carried.size()));
    for (std::size_t k = 0; k < scans; ++k)
      scanned[k].push_back(out[1 + carried.size() + k]);
  }
  if (i == 0 && scans > 0) node.fail("a Loop that runs no iteration has scan outputs");
  std::vector<OnnxValue> results = carried;
  for (const std::vector<OnnxValue>& values : scanned)
    results.push_back({stacked(values, 0), false});
  return results;
}

/// Scan's attribute of one entry per input or output (fallback for each when absent).
std::vector<int64_t> per_entry(const OnnxNode& node, std::string_view name, std::size_t n) {
  std::vector<int64_t> values = node.attr_ints(name).value_or(std::vector<int64_t>(n, 0));
  if (values.size() != n) node.fail(name, " has ", values.size(), " entries for ", n);
  return values;
}

/// Scan (opset 9 on, no batch dim): the body (states..., one slice of each scanned input...)
/// -> (states..., one slice of each scan output...) run once per position along the scanned
/// inputs' axes (in reverse for a direction of 1); the final states, then the scan outputs'
/// slices stacked along their axes.
std::vector<OnnxValue> scan(const OnnxNode& node) {
  const int64_t m = node.attr_int("num_scan_inputs", 0);
  const auto n_inputs = static_cast<int64_t>(node.input_count());
  if (m < 1 || m > n_inputs) node.fail("num_scan_inputs ", m, " for ", n_inputs, " inputs");
  const auto states = static_cast<std::size_t>(n_inputs - m);
  const int body_outputs = node.attr_graph("body").output_size();
  if (static_cast<std::size_t>(body_outputs) < states)
    node.fail("the body gives ", body_outputs, " outputs for ", states, " states");
  const auto outputs = static_cast<std::size_t>(body_outputs) - states;
  const std::vector<int64_t> in_axes =
      per_entry(node, "scan_input_axes", static_cast<std::size_t>(m));
  const std::vector<int64_t> in_dirs =
      per_entry(node, "scan_input_directions", static_cast<std::size_t>(m));
  const std::vector<int64_t> out_axes = per_entry(node, "scan_output_axes", outputs);
  const std::vector<int64_t> out_dirs = per_entry(node, "scan_output_directions", outputs);
  std::vector<TensorHandle> scanned;
  std::vector<int64_t> axes;
  int64_t length = -1;
  for (std::size_t k = 0; k < static_cast<std::size_t>(m); ++k) {
    const OnnxValue& x = node.input(states + k);
    const int64_t axis = onnx_axis(node, in_axes[k], onnx_rank(x));
    const int64_t n = x.tensor.shape().dims()[static_cast<std::size_t>(axis)];
    if (length >= 0 && n != length) node.fail("scanned inputs of lengths ", length, " and ", n);
    length = n;
    scanned.push_back(x.tensor);
    axes.push_back(axis);
  }
  if (length < 1 || length > kMaxIterations) node.fail("a scan of length ", length);
  std::vector<OnnxValue> state;
  for (std::size_t k = 0; k < states; ++k)
    state.push_back(node.input(k));
  std::vector<std::vector<OnnxValue>> slices(outputs);
  for (int64_t t = 0; t < length; ++t) {
    std::vector<OnnxValue> inputs = state;
    for (std::size_t k = 0; k < scanned.size(); ++k) {
      const int64_t at = in_dirs[k] != 0 ? length - 1 - t : t;
      const TensorHandle slice = ops::narrow(scanned[k], axes[k], at, 1);
      const bool scalar = scanned[k].rank() == 1;
      inputs.push_back({scalar ? slice : ops::squeeze(slice, axes[k]), scalar});
    }
    const std::vector<OnnxValue> out = node.run_graph("body", inputs);
    state.assign(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(states));
    for (std::size_t k = 0; k < outputs; ++k)
      slices[k].push_back(out[states + k]);
  }
  std::vector<OnnxValue> results = state;
  for (std::size_t k = 0; k < outputs; ++k) {
    if (out_dirs[k] != 0) std::ranges::reverse(slices[k]);
    const int64_t rank = onnx_rank(slices[k].front()) + 1;
    results.push_back({stacked(slices[k], onnx_axis(node, out_axes[k], rank)), false});
  }
  return results;
}

}  // namespace

void add_control_importers(OnnxImporters& table) {
  table.insert({
      {"If", if_op},
      {"Loop", loop},
      {"Scan", scan},
  });
}

}  // namespace ember::detail
