// Importers of ONNX's ops that pick entries along an axis: Gather and GatherElements (indices
// counted from the end where negative), Compress and ReverseSequence (from known values).
#include "graph/onnx/onnx_import_util.h"

namespace ember::detail {
namespace {

/// Indices counted from the end where negative, as ONNX's Gather allows.
TensorHandle wrapped_indices(const TensorHandle& indices, int64_t size) {
  return ops::where(ops::lower_elem(indices, 0), ops::add_scalar(indices, size), indices);
}

std::vector<OnnxValue> gather(const OnnxNode& node) {
  const std::vector<int64_t> in = onnx_dims(node.input(0));
  const int64_t axis = onnx_axis(node, node.attr_int("axis", 0), static_cast<int64_t>(in.size()));
  const OnnxValue& indices = node.input(1);
  const std::vector<int64_t> index_dims = onnx_dims(indices);
  const TensorHandle flat = ops::reshape(indices.tensor, {indices.tensor.shape().num_elements()});
  const TensorHandle picked =
      ops::select(node.tensor(0), axis, wrapped_indices(flat, in[static_cast<std::size_t>(axis)]));
  std::vector<int64_t> dims(in.begin(), in.begin() + axis);
  dims.insert(dims.end(), index_dims.begin(), index_dims.end());
  dims.insert(dims.end(), in.begin() + axis + 1, in.end());
  return {reshaped(picked, dims)};
}

std::vector<OnnxValue> gather_elements(const OnnxNode& node) {
  const std::vector<int64_t> in = onnx_dims(node.input(0));
  const int64_t axis = onnx_axis(node, node.attr_int("axis", 0), static_cast<int64_t>(in.size()));
  const TensorHandle indices = wrapped_indices(node.tensor(1), in[static_cast<std::size_t>(axis)]);
  return one(ops::gather(node.tensor(0), axis, indices));
}

/// Compress: the entries along axis (of the flattened input without one) whose condition, a
/// known Bool vector, is true.
std::vector<OnnxValue> compress(const OnnxNode& node) {
  TensorHandle x = node.tensor(0);
  int64_t axis = 0;
  if (auto given = node.attr_int("axis")) {
    axis = onnx_axis(node, *given, onnx_rank(node.input(0)));
  } else {
    x = ops::reshape(x, {x.shape().num_elements()});
  }
  const std::vector<int64_t> condition = node.known(1, "condition").to_vector<int64_t>();
  const int64_t size = x.shape().dims()[static_cast<std::size_t>(axis)];
  if (static_cast<int64_t>(condition.size()) > size)
    node.fail("condition has ", condition.size(), " entries for ", size);
  std::vector<int64_t> kept;
  for (std::size_t i = 0; i < condition.size(); ++i) {
    if (condition[i] != 0) kept.push_back(static_cast<int64_t>(i));
  }
  const TensorHandle indices =
      ops::from_data(TensorData(kept, Shape{static_cast<int64_t>(kept.size())}),
                     TensorCreationOptions(node.device()).with_dtype(DType::I64), TensorKind::Int);
  return one(ops::select(x, axis, indices));
}

/// ReverseSequence: along time_axis, the first sequence_lens[b] entries of each batch b in
/// reverse order, the rest kept; the gather's positions built from the known lengths.
std::vector<OnnxValue> reverse_sequence(const OnnxNode& node) {
  const TensorHandle& x = node.tensor(0);
  const int64_t rank = onnx_rank(node.input(0));
  const int64_t time = onnx_axis(node, node.attr_int("time_axis", 0), rank);
  const int64_t batch = onnx_axis(node, node.attr_int("batch_axis", 1), rank);
  if (rank < 2 || time == batch) node.fail("time_axis and batch_axis must be two dims");
  const std::vector<int64_t> lengths = node.known_ints(1, "sequence_lens");
  const int64_t steps = x.shape().dims()[static_cast<std::size_t>(time)];
  const int64_t batches = x.shape().dims()[static_cast<std::size_t>(batch)];
  if (static_cast<int64_t>(lengths.size()) != batches)
    node.fail(lengths.size(), " sequence lengths for ", batches, " batches");
  std::vector<int64_t> source(static_cast<std::size_t>(steps * batches));  // [time][batch]
  for (int64_t b = 0; b < batches; ++b) {
    const int64_t length = lengths[static_cast<std::size_t>(b)];
    if (length < 0 || length > steps) node.fail("sequence length ", length, " of ", steps);
    for (int64_t t = 0; t < steps; ++t)
      source[static_cast<std::size_t>(t * batches + b)] = t < length ? length - 1 - t : t;
  }
  std::vector<int64_t> dims(static_cast<std::size_t>(rank), 1);
  dims[static_cast<std::size_t>(time)] = steps;
  dims[static_cast<std::size_t>(batch)] = batches;
  TensorHandle index =
      ops::from_data(TensorData(source, Shape{steps, batches}),
                     TensorCreationOptions(node.device()).with_dtype(DType::I64), TensorKind::Int);
  if (time > batch) index = ops::transpose(index);
  index = ops::expand(ops::reshape(index, dims), x.shape().dims());
  return one(ops::gather(x, time, index));
}

}  // namespace

void add_gather_importers(OnnxImporters& table) {
  table.insert({
      {"Gather", gather},
      {"GatherElements", gather_elements},
      {"Compress", compress},
      {"ReverseSequence", reverse_sequence},
  });
}

}  // namespace ember::detail
