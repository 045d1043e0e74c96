// Importers of ONNX's Pad (constant, reflect, edge, wrap) and CenterCropPad, and pad_axis, which
// the convolutions and pools share.
#include <numeric>

#include "graph/onnx/onnx_import_util.h"

namespace ember::detail {
namespace {

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

void add_pad_importers(OnnxImporters& table) {
  table.insert({
      {"Pad", pad},
      {"CenterCropPad", center_crop_pad},
  });
}

}  // namespace ember::detail
