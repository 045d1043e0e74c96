// Importers of ONNX's shape and layout ops: Reshape, Flatten, Transpose, Squeeze, Unsqueeze,
// Concat, Split, Slice, Gather, GatherElements, Expand, Tile, Pad, and the ops that compute
// shapes and constants while the graph is built (Shape, Size, Constant, ConstantOfShape, Range).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "graph/onnx/onnx_import_util.h"
#include "graph/onnx/onnx_model.h"

namespace ember::detail {
namespace {

/// The largest tensor Range makes on the host, and ConstantOfShape while the graph is built:
/// their sizes come from the model, which may be hostile.
constexpr int64_t kMaxBuiltElements = int64_t{1} << 24;

int64_t element_count(const OnnxNode& node, const std::vector<int64_t>& dims) {
  int64_t count = 1;
  for (int64_t dim : dims) {
    if (dim < 0) node.fail("dim ", dim, " is negative");
    if (__builtin_mul_overflow(count, dim, &count) || count > kMaxBuiltElements)
      node.fail("a tensor of dims ", Shape(dims), " is larger than ember builds here");
  }
  return count;
}

/// Reshape: 0 copies the input's dim (unless allowzero), -1 is inferred.
std::vector<OnnxValue> reshape(const OnnxNode& node) {
  std::vector<int64_t> dims = node.known_ints(1, "shape");
  const std::vector<int64_t> in = onnx_dims(node.input(0));
  const bool allow_zero = node.attr_int("allowzero", 0) != 0;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == 0 && !allow_zero) {
      if (i >= in.size()) node.fail("shape entry ", i, " is 0, past the input's rank ", in.size());
      dims[i] = in[i];
    } else if (dims[i] < -1) {
      node.fail("shape entry ", i, " is ", dims[i]);
    }
  }
  return {reshaped(node.tensor(0), dims)};
}

std::vector<OnnxValue> flatten(const OnnxNode& node) {
  const std::vector<int64_t> dims = onnx_dims(node.input(0));
  const auto rank = static_cast<int64_t>(dims.size());
  int64_t axis = node.attr_int("axis", 1);
  if (axis < -rank || axis > rank) node.fail("axis ", axis, " is out of range for rank ", rank);
  if (axis < 0) axis += rank;
  const auto middle = dims.begin() + axis;
  const int64_t outer = std::accumulate(dims.begin(), middle, int64_t{1}, std::multiplies<>());
  const int64_t inner = std::accumulate(middle, dims.end(), int64_t{1}, std::multiplies<>());
  return one(ops::reshape(node.tensor(0), {outer, inner}));
}

std::vector<OnnxValue> transpose(const OnnxNode& node) {
  const int64_t rank = onnx_rank(node.input(0));
  if (rank == 0) return {node.input(0)};
  std::vector<int64_t> perm(static_cast<std::size_t>(rank));
  std::iota(perm.rbegin(), perm.rend(), 0);  // default: the dims reversed
  if (auto given = node.attr_ints("perm")) perm = *given;
  if (static_cast<int64_t>(perm.size()) != rank)
    node.fail("perm has ", perm.size(), " entries for rank ", rank);
  return one(ops::permute(node.tensor(0), perm));
}

/// Axes of rank (input 1 when given) made non-negative, sorted, each once.
std::vector<int64_t> axes_input(const OnnxNode& node, std::size_t input, int64_t rank) {
  std::vector<int64_t> axes = node.known_ints(input, "axes");
  for (int64_t& axis : axes)
    axis = onnx_axis(node, axis, rank);
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) node.fail("an axis repeats");
  return axes;
}

std::vector<OnnxValue> squeeze(const OnnxNode& node) {
  const std::vector<int64_t> in = onnx_dims(node.input(0));
  const auto rank = static_cast<int64_t>(in.size());
  std::vector<bool> drop(in.size(), false);
  if (node.has(1)) {
    for (int64_t axis : axes_input(node, 1, rank)) {
      if (in[static_cast<std::size_t>(axis)] != 1)
        node.fail("axis ", axis, " has size ", in[static_cast<std::size_t>(axis)], ", not 1");
      drop[static_cast<std::size_t>(axis)] = true;
    }
  } else {
    for (std::size_t d = 0; d < in.size(); ++d)
      drop[d] = in[d] == 1;
  }
  std::vector<int64_t> dims;
  for (std::size_t d = 0; d < in.size(); ++d) {
    if (!drop[d]) dims.push_back(in[d]);
  }
  return {reshaped(node.tensor(0), dims)};
}

std::vector<OnnxValue> unsqueeze(const OnnxNode& node) {
  const std::vector<int64_t> in = onnx_dims(node.input(0));
  const std::vector<int64_t> given = node.known_ints(1, "axes");
  const auto rank = static_cast<int64_t>(in.size() + given.size());
  const std::vector<int64_t> axes = axes_input(node, 1, rank);
  std::vector<int64_t> dims;
  auto next = in.begin();
  for (int64_t d = 0; d < rank; ++d)
    dims.push_back(std::binary_search(axes.begin(), axes.end(), d) ? 1 : *next++);
  return {reshaped(node.tensor(0), dims)};
}

std::vector<OnnxValue> concat(const OnnxNode& node) {
  const std::optional<int64_t> axis = node.attr_int("axis");
  if (!axis) node.fail("attribute 'axis' is required");
  ops::Handles parts;
  for (std::size_t i = 0; i < node.input_count(); ++i) {
    if (onnx_rank(node.input(i)) == 0) node.fail("input ", i, " is a scalar");
    parts.push_back(node.tensor(i));
  }
  return one(ops::cat(parts, onnx_axis(node, *axis, onnx_rank(node.input(0)))));
}

/// Split: sizes from input 1, else equal pieces (the last smaller when it must be, opset 18's
/// num_outputs), one per output.
std::vector<OnnxValue> split(const OnnxNode& node) {
  const std::vector<int64_t> in = onnx_dims(node.input(0));
  const int64_t axis = onnx_axis(node, node.attr_int("axis", 0), static_cast<int64_t>(in.size()));
  const int64_t size = in[static_cast<std::size_t>(axis)];
  std::vector<int64_t> sizes;
  if (node.has(1)) {
    sizes = node.known_ints(1, "split");
  } else {
    const int64_t pieces = node.attr_int("num_outputs", node.proto().output_size());
    if (pieces != node.proto().output_size())
      node.fail("num_outputs ", pieces, " for ", node.proto().output_size(), " outputs");
    const int64_t each = (size + pieces - 1) / pieces;
    for (int64_t start = 0; start < size || sizes.empty(); start += each)
      sizes.push_back(std::min(each, size - start));
  }
  std::vector<OnnxValue> outputs;
  int64_t start = 0;
  for (int64_t piece : sizes) {
    if (piece < 0 || piece > size - start)
      node.fail("split sizes ", Shape(sizes), " do not fit dim ", axis, " of size ", size);
    outputs.push_back({ops::narrow(node.tensor(0), axis, start, piece), false});
    start += piece;
  }
  if (start != size) node.fail("split sizes ", Shape(sizes), " do not add up to ", size);
  return outputs;
}

/// ONNX's clamping of a Slice bound: counted from the end when negative, then within the dim
/// (one before it for an end walking backwards).
int64_t clamp_bound(int64_t bound, int64_t dim, int64_t step, bool is_end) {
  if (bound < 0) bound = bound < -dim ? -1 : bound + dim;
  if (step > 0) return std::clamp<int64_t>(bound, 0, dim);
  return std::clamp<int64_t>(bound, is_end ? -1 : 0, dim - 1);
}

std::vector<OnnxValue> slice(const OnnxNode& node) {
  const std::vector<int64_t> in = onnx_dims(node.input(0));
  const auto rank = static_cast<int64_t>(in.size());
  const std::vector<int64_t> starts = node.known_ints(1, "starts");
  const std::vector<int64_t> ends = node.known_ints(2, "ends");
  std::vector<int64_t> axes(starts.size());
  std::iota(axes.begin(), axes.end(), 0);
  if (node.has(3)) axes = node.known_ints(3, "axes");
  std::vector<int64_t> steps(starts.size(), 1);
  if (node.has(4)) steps = node.known_ints(4, "steps");
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size()) {
    node.fail("starts, ends, axes and steps have ", starts.size(), ", ", ends.size(), ", ",
              axes.size(), " and ", steps.size(), " entries");
  }
  std::vector<Slice> slices(in.size());
  std::vector<bool> seen(in.size(), false);
  for (std::size_t i = 0; i < starts.size(); ++i) {
    const auto axis = static_cast<std::size_t>(onnx_axis(node, axes[i], rank));
    if (seen[axis]) node.fail("axis ", axes[i], " repeats");
    seen[axis] = true;
    if (steps[i] == 0) node.fail("step 0 on axis ", axes[i]);
    // A step longer than the dim takes one entry, as the dim's length does; clamped, it cannot
    // overflow when negated (INT64_MIN).
    steps[i] = std::clamp<int64_t>(steps[i], -std::max<int64_t>(in[axis], 1),
                                   std::max<int64_t>(in[axis], 1));
    const int64_t start = clamp_bound(starts[i], in[axis], steps[i], false);
    const int64_t end = clamp_bound(ends[i], in[axis], steps[i], true);
    slices[axis] = Slice(start, end < 0 ? std::nullopt : std::optional<int64_t>(end), steps[i]);
    if (steps[i] > 0 && end <= start) slices[axis] = Slice(0, 0);  // empty, not "to the end"
    if (steps[i] < 0 && end >= start) slices[axis] = Slice(0, 0);
  }
  return one(ops::slice(node.tensor(0), slices));
}

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

/// Expand: the input broadcast with the shape given (either side's 1s give way).
std::vector<OnnxValue> expand(const OnnxNode& node) {
  const std::vector<int64_t> shape = node.known_ints(1, "shape");
  const std::vector<int64_t> in = onnx_dims(node.input(0));
  const std::size_t rank = std::max(shape.size(), in.size());
  std::vector<int64_t> dims(rank);
  for (std::size_t d = 0; d < rank; ++d) {
    const int64_t a = d + in.size() >= rank ? in[d + in.size() - rank] : 1;
    const int64_t b = d + shape.size() >= rank ? shape[d + shape.size() - rank] : 1;
    if (a != b && a != 1 && b != 1)
      node.fail("input dims ", Shape(in), " do not broadcast with shape ", Shape(shape));
    dims[d] = a == 1 ? b : a;
  }
  if (dims.empty()) return {node.input(0)};
  return one(ops::expand(node.tensor(0), dims));
}

std::vector<OnnxValue> tile(const OnnxNode& node) {
  const std::vector<int64_t> repeats = node.known_ints(1, "repeats");
  if (static_cast<int64_t>(repeats.size()) != onnx_rank(node.input(0)))
    node.fail(repeats.size(), " repeats for rank ", onnx_rank(node.input(0)));
  TensorHandle x = node.tensor(0);
  for (std::size_t d = 0; d < repeats.size(); ++d) {
    if (repeats[d] < 0) node.fail("repeat ", repeats[d], " on axis ", d);
    x = ops::repeat_dim(x, static_cast<int64_t>(d), repeats[d]);
  }
  return one(x, node.input(0).scalar);
}

/// The entries Pad adds on one side of axis for the reflect, edge and wrap modes: x's first (or
/// last) entries mirrored, its edge entry repeated, or its entries from the other end.
TensorHandle border(const OnnxNode& node, const TensorHandle& x, int64_t axis, int64_t amount,
                    bool before, const std::string& mode) {
  const int64_t size = x.shape().dims()[static_cast<std::size_t>(axis)];
  if (mode == "wrap") {
    if (amount > size) node.fail("wrap pad ", amount, " on axis ", axis, " of size ", size);
    return ops::narrow(x, axis, before ? size - amount : 0, amount);
  }
  if (mode == "reflect") {
    if (amount >= size) node.fail("reflect pad ", amount, " on axis ", axis, " of size ", size);
    return ops::flip(ops::narrow(x, axis, before ? 1 : size - 1 - amount, amount), {axis});
  }
  if (size == 0) node.fail("edge pad of the empty axis ", axis);
  std::vector<int64_t> dims = x.shape().dims();
  dims[static_cast<std::size_t>(axis)] = amount;
  return ops::expand(ops::narrow(x, axis, before ? 0 : size - 1, 1), dims);
}

/// Pad: each side of each axis grown (constant, reflect, edge or wrap) or cut where negative.
std::vector<OnnxValue> pad(const OnnxNode& node) {
  const std::string mode = node.attr_string("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge" && mode != "wrap")
    node.fail("mode '", mode, "' is not one ONNX defines");
  const int64_t rank = onnx_rank(node.input(0));
  const std::vector<int64_t> pads = node.known_ints(1, "pads");
  std::vector<int64_t> axes(static_cast<std::size_t>(rank));
  std::iota(axes.begin(), axes.end(), 0);
  if (node.has(3)) axes = node.known_ints(3, "axes");
  if (pads.size() != 2 * axes.size()) node.fail(pads.size(), " pads for ", axes.size(), " axes");
  TensorHandle x = node.tensor(0);
  TensorHandle value =
      ops::zeros(Shape{1}, TensorCreationOptions(node.device()).with_dtype(x.dtype()), x.kind());
  if (node.has(2)) {
    if (node.tensor(2).shape().num_elements() != 1) node.fail("constant_value is not one value");
    value = ops::reshape(ops::cast(node.tensor(2), x.dtype()), {1});
  }
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const int64_t axis = onnx_axis(node, axes[i], rank);
    const int64_t before = pads[i];
    const int64_t after = pads[i + axes.size()];
    if (mode == "constant" || (before <= 0 && after <= 0)) {
      x = pad_axis(node, x, axis, before, after, value);
      continue;
    }
    const TensorHandle head = before > 0 ? border(node, x, axis, before, true, mode) : x;
    const TensorHandle tail = after > 0 ? border(node, x, axis, after, false, mode) : x;
    x = pad_axis(node, x, axis, std::min<int64_t>(before, 0), std::min<int64_t>(after, 0), value);
    if (before > 0) x = ops::cat({head, x}, axis);
    if (after > 0) x = ops::cat({x, tail}, axis);
  }
  return one(x);
}

/// DepthToSpace: channels [C] moved into blocks of the spatial dims (DCR: depth, column, row
/// order of the channels; CRD: column, row, depth), [N, C / b^2, H b, W b].
std::vector<OnnxValue> depth_to_space(const OnnxNode& node) {
  const TensorHandle& x = node.tensor(0);
  if (x.rank() != 4 || node.input(0).scalar) node.fail("input must have rank 4, got ", x.shape());
  const int64_t b = node.attr_int("blocksize", 0);
  const auto& d = x.shape().dims();
  if (b < 1 || d[1] % (b * b) != 0)
    node.fail("blocksize ", b, " does not divide ", d[1], " channels");
  const bool dcr = node.attr_string("mode", "DCR") == "DCR";
  const TensorHandle split = dcr ? ops::reshape(x, {d[0], b, b, d[1] / (b * b), d[2], d[3]})
                                 : ops::reshape(x, {d[0], d[1] / (b * b), b, b, d[2], d[3]});
  const TensorHandle moved =
      ops::permute(split, dcr ? ops::Dims{0, 3, 4, 1, 5, 2} : ops::Dims{0, 1, 4, 2, 5, 3});
  return one(ops::reshape(moved, {d[0], d[1] / (b * b), d[2] * b, d[3] * b}));
}

/// SpaceToDepth: blocks of b x b positions moved into the channels, [N, C b^2, H / b, W / b]
/// (DCR: the block's position before the channel, CRD: after).
std::vector<OnnxValue> space_to_depth(const OnnxNode& node) {
  const TensorHandle& x = node.tensor(0);
  if (x.rank() != 4 || node.input(0).scalar) node.fail("input must have rank 4, got ", x.shape());
  const int64_t b = node.attr_int("blocksize", 0);
  const auto& d = x.shape().dims();
  if (b < 1 || d[2] % b != 0 || d[3] % b != 0)
    node.fail("blocksize ", b, " does not divide ", d[2], " x ", d[3]);
  const TensorHandle split = ops::reshape(x, {d[0], d[1], d[2] / b, b, d[3] / b, b});
  const bool dcr = node.attr_string("mode", "DCR") == "DCR";
  const TensorHandle moved =
      ops::permute(split, dcr ? ops::Dims{0, 3, 5, 1, 2, 4} : ops::Dims{0, 1, 3, 5, 2, 4});
  return one(ops::reshape(moved, {d[0], d[1] * b * b, d[2] / b, d[3] / b}));
}

/// CenterCropPad: each axis cut to, or padded with zeros to, the size given, around its centre
/// (the odd entry cut from, or added at, the end).
std::vector<OnnxValue> center_crop_pad(const OnnxNode& node) {
  TensorHandle x = node.tensor(0);
  const int64_t rank = onnx_rank(node.input(0));
  const std::vector<int64_t> sizes = node.known_ints(1, "shape");
  std::vector<int64_t> axes(static_cast<std::size_t>(rank));
  std::iota(axes.begin(), axes.end(), 0);
  if (auto given = node.attr_ints("axes")) axes = *given;
  if (sizes.size() != axes.size()) node.fail(sizes.size(), " sizes for ", axes.size(), " axes");
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const int64_t axis = onnx_axis(node, axes[i], rank);
    const int64_t size = x.shape().dims()[static_cast<std::size_t>(axis)];
    if (sizes[i] < 0) node.fail("size ", sizes[i]);
    if (sizes[i] < size) x = ops::narrow(x, axis, (size - sizes[i]) / 2, sizes[i]);
    const int64_t grow = sizes[i] - size;
    if (grow > 0) x = pad_axis(node, x, axis, grow / 2, grow - grow / 2, 0.0);
  }
  return one(x);
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

TensorHandle known_ints(const std::vector<int64_t>& values) {
  return ops::from_data(TensorData(values, Shape{static_cast<int64_t>(values.size())}),
                        TensorCreationOptions(Device::ndarray()).with_dtype(DType::I64),
                        TensorKind::Int);
}

/// Shape: known while building, whatever the input (start and end pick a range of dims).
std::vector<OnnxValue> shape(const OnnxNode& node) {
  const std::vector<int64_t> dims = onnx_dims(node.input(0));
  const auto rank = static_cast<int64_t>(dims.size());
  int64_t start = node.attr_int("start", 0);
  int64_t end = node.attr_int("end", rank);
  start = std::clamp<int64_t>(start < 0 ? start + rank : start, 0, rank);
  end = std::clamp<int64_t>(end < 0 ? end + rank : end, 0, rank);
  return one(
      known_ints(std::vector<int64_t>(dims.begin() + start, dims.begin() + std::max(start, end))));
}

std::vector<OnnxValue> size(const OnnxNode& node) {
  return one(known_ints({node.tensor(0).shape().num_elements()}), true);
}

/// Constant: one of its value attributes, known while building.
std::vector<OnnxValue> constant_node(const OnnxNode& node) {
  std::optional<TensorData> data = node.attr_tensor("value");
  if (node.has_attribute("value_float"))
    data = TensorData(std::vector<float>{node.attr_float("value_float", 0.0F)}, Shape{});
  if (auto floats = node.attr_floats("value_floats"))
    data = TensorData(*floats, Shape{static_cast<int64_t>(floats->size())});
  if (auto i = node.attr_int("value_int")) data = TensorData(std::vector<int64_t>{*i}, Shape{});
  if (auto ints = node.attr_ints("value_ints"))
    data = TensorData(*ints, Shape{static_cast<int64_t>(ints->size())});
  if (!data) node.fail("no value attribute ember reads (value, value_float(s), value_int(s))");
  const bool scalar = data->shape().rank() == 0;
  const TensorData ranked(std::vector<std::byte>(data->bytes().begin(), data->bytes().end()),
                          scalar ? Shape{1} : data->shape(), data->dtype());
  return one(constant(node, ranked), scalar);
}

std::vector<OnnxValue> constant_of_shape(const OnnxNode& node) {
  const std::vector<int64_t> dims = node.known_ints(0, "shape");
  element_count(node, dims);
  const TensorData value =
      node.attr_tensor("value").value_or(TensorData(std::vector<float>{0.0F}, Shape{1}));
  if (value.num_elements() != 1) node.fail("value holds ", value.num_elements(), " elements");
  const Scalar fill = kind_of(value.dtype()) == TensorKind::Float
                          ? Scalar(value.to_vector<double>()[0])
                          : Scalar(value.to_vector<int64_t>()[0]);
  const TensorHandle result = ops::full(
      dims.empty() ? Shape{1} : Shape(dims), fill,
      TensorCreationOptions(node.device()).with_dtype(value.dtype()), kind_of(value.dtype()));
  return one(result, dims.empty());
}

/// Range: start, start + delta, ... before limit, from known scalars.
std::vector<OnnxValue> range(const OnnxNode& node) {
  const TensorData start = node.known(0, "start");
  const double first = start.to_vector<double>().at(0);
  const double limit = node.known(1, "limit").to_vector<double>().at(0);
  const double delta = node.known(2, "delta").to_vector<double>().at(0);
  if (delta == 0 || !std::isfinite(first) || !std::isfinite(limit) || !std::isfinite(delta))
    node.fail("start ", first, ", limit ", limit, ", delta ", delta);
  const double steps = std::max(std::ceil((limit - first) / delta), 0.0);
  if (steps > static_cast<double>(kMaxBuiltElements)) node.fail(steps, " elements is too many");
  std::vector<double> values(static_cast<std::size_t>(steps));
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = first + static_cast<double>(i) * delta;
  const TensorData data(values, Shape{static_cast<int64_t>(values.size())}, start.dtype());
  return one(constant(node, data));
}

}  // namespace

TensorHandle pad_axis(const OnnxNode& node, const TensorHandle& x, int64_t axis, int64_t before,
                      int64_t after, const Scalar& value) {
  const TensorHandle fill = ops::full(
      Shape{1}, value, TensorCreationOptions(node.device()).with_dtype(x.dtype()), x.kind());
  return pad_axis(node, x, axis, before, after, fill);
}

TensorHandle pad_axis(const OnnxNode& node, const TensorHandle& x, int64_t axis, int64_t before,
                      int64_t after, const TensorHandle& value) {
  TensorHandle result = x;
  for (const bool first : {true, false}) {
    const int64_t amount = first ? before : after;
    const int64_t size = result.shape().dims()[static_cast<std::size_t>(axis)];
    if (amount < 0) {
      if (-amount > size) node.fail("pad ", amount, " on axis ", axis, " of size ", size);
      result = ops::narrow(result, axis, first ? -amount : 0, size + amount);
    } else if (amount > 0) {
      std::vector<int64_t> dims = result.shape().dims();
      dims[static_cast<std::size_t>(axis)] = amount;
      const TensorHandle fill =
          ops::expand(ops::reshape(value, std::vector<int64_t>(dims.size(), 1)), dims);
      result = first ? ops::cat({fill, result}, axis) : ops::cat({result, fill}, axis);
    }
  }
  return result;
}

void add_layout_importers(OnnxImporters& table) {
  table.insert({
      {"Reshape", reshape},
      {"Flatten", flatten},
      {"Transpose", transpose},
      {"Squeeze", squeeze},
      {"Unsqueeze", unsqueeze},
      {"Concat", concat},
      {"Split", split},
      {"Slice", slice},
      {"Gather", gather},
      {"GatherElements", gather_elements},
      {"Expand", expand},
      {"Tile", tile},
      {"Pad", pad},
      {"Shape", shape},
      {"Size", size},
      {"Constant", constant_node},
      {"ConstantOfShape", constant_of_shape},
      {"Range", range},
      {"DepthToSpace", depth_to_space},
      {"CenterCropPad", center_crop_pad},
      {"Compress", compress},
      {"ReverseSequence", reverse_sequence},
      {"SpaceToDepth", space_to_depth},
  });
}

}  // namespace ember::detail
