// Importers of ONNX's layout ops: Reshape, Flatten, Transpose, Squeeze, Unsqueeze, Concat,
// Split, Slice, Expand, Tile, DepthToSpace, SpaceToDepth.
#include <algorithm>
#include <numeric>

#include "graph/onnx/onnx_import_util.h"

namespace ember::detail {
namespace {

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

/// DepthToSpace: channels [C] moved into blocks of the spatial dims (DCR: depth, column, row
/// order of the channels; CRD: column, row, depth), [N, C / b^2, H b, W b].
std::vector<OnnxValue> depth_to_space(const OnnxNode& node) {
  const TensorHandle& x = node.tensor(0);
  if (x.rank() != 4 || node.input(0).scalar) node.fail("input must have rank 4, got ", x.shape());
  const int64_t b = node.attr_int("blocksize", 0);
  const auto& d = x.shape().dims();
  if (b < 1 || d[1] / b < b || d[1] % (b * b) != 0)  // b * b <= d[1]: no overflow
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
  if (b < 1 || b > d[2] || b > d[3] || d[2] % b != 0 || d[3] % b != 0)
    node.fail("blocksize ", b, " does not divide ", d[2], " x ", d[3]);
  const TensorHandle split = ops::reshape(x, {d[0], d[1], d[2] / b, b, d[3] / b, b});
  const bool dcr = node.attr_string("mode", "DCR") == "DCR";
  const TensorHandle moved =
      ops::permute(split, dcr ? ops::Dims{0, 3, 5, 1, 2, 4} : ops::Dims{0, 1, 3, 5, 2, 4});
  return one(ops::reshape(moved, {d[0], d[1] * b * b, d[2] / b, d[3] / b}));
}

}  // namespace

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
      {"Expand", expand},
      {"Tile", tile},
      {"DepthToSpace", depth_to_space},
      {"SpaceToDepth", space_to_depth},
  });
}

}  // namespace ember::detail
