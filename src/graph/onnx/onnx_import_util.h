// Helpers the op importers (onnx_import_*.cpp) share: ONNX's ranks and axes over ember tensors,
// and results with ONNX's rank-0 flag.
#pragma once

#include <cstdint>
#include <vector>

#include "ember/tensor_ops.h"
#include "graph/onnx/onnx_node.h"

namespace ember::detail {

/// The rank ONNX sees (0 for a scalar).
inline int64_t onnx_rank(const OnnxValue& value) {
  return value.scalar ? 0 : static_cast<int64_t>(value.tensor.rank());
}

/// The dims ONNX sees (none for a scalar).
inline std::vector<int64_t> onnx_dims(const OnnxValue& value) {
  if (value.scalar) return {};
  return value.tensor.shape().dims();
}

/// axis in [-rank, rank) made non-negative; InvalidArgument naming the node otherwise.
inline int64_t onnx_axis(const OnnxNode& node, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) node.fail("axis ", axis, " is out of range for rank ", rank);
  return axis < 0 ? axis + rank : axis;
}

/// One result.
inline std::vector<OnnxValue> one(TensorHandle tensor, bool scalar = false) {
  return {OnnxValue{std::move(tensor), scalar}};
}

/// x reshaped to ONNX dims (none: a scalar, shape [1]).
inline OnnxValue reshaped(const TensorHandle& x, const std::vector<int64_t>& dims) {
  if (dims.empty()) return {ops::reshape(x, {1}), true};
  return {ops::reshape(x, dims), false};
}

/// Whether every given input is a scalar: the result of an elementwise op over them is one.
inline bool all_scalar(const OnnxNode& node) {
  for (std::size_t i = 0; i < node.input_count(); ++i) {
    if (node.has(i) && !node.input(i).scalar) return false;
  }
  return true;
}

/// A tensor of data on the node's device.
inline TensorHandle constant(const OnnxNode& node, const TensorData& data) {
  return ops::from_data(data, TensorCreationOptions(node.device()).with_dtype(data.dtype()),
                        kind_of(data.dtype()));
}

}  // namespace ember::detail

namespace ember::detail {

/// x grown by before and after entries of value (a one-element tensor of x's device) along axis,
/// or cut where negative.
TensorHandle pad_axis(const OnnxNode& node, const TensorHandle& x, int64_t axis, int64_t before,
                      int64_t after, const TensorHandle& value);
/// pad_axis with a scalar value.
TensorHandle pad_axis(const OnnxNode& node, const TensorHandle& x, int64_t axis, int64_t before,
                      int64_t after, const Scalar& value);

}  // namespace ember::detail

namespace ember::detail {

/// The dims of a rank-`rank` shape of size n along axis and 1 elsewhere: a per-axis vector's
/// shape to broadcast along that axis.
inline std::vector<int64_t> positions_shape(int64_t rank, int64_t axis, int64_t n) {
  std::vector<int64_t> dims(static_cast<std::size_t>(rank), 1);
  dims[static_cast<std::size_t>(axis)] = n;
  return dims;
}

/// 0, 1, ..., n - 1 (i64, on the node's device) along axis of a rank-`rank` shape, every other
/// dim 1: what a tensor's positions along axis are compared with.
inline TensorHandle positions(const OnnxNode& node, int64_t n, int64_t rank, int64_t axis) {
  const TensorHandle range =
      ops::arange(0, n, 1, TensorCreationOptions(node.device()).with_dtype(DType::I64));
  return ops::reshape(range, positions_shape(rank, axis, n));
}

}  // namespace ember::detail

namespace ember::detail {

/// ScatterElements' and ScatterND's reductions mul, max and min: base [T, S] with row rows[k]
/// (i64 [K], in [0, T)) combined with updates [K, S] by reduction, each row by all its updates.
/// Written densely (every row against every update, [T, K, S]), so refused beyond 2^24 entries.
TensorHandle scatter_reduce(const OnnxNode& node, const TensorHandle& base,
                            const TensorHandle& rows, const TensorHandle& updates,
                            const std::string& reduction);

}  // namespace ember::detail

namespace ember::detail {

/// The sum of x along axis (kept, size 1) as ONNX's reference sums x's dtype with NumPy: bf16
/// (ml_dtypes' type, which NumPy reduces through its add one element at a time) rounds the
/// running sum to bf16 after every element, in order; f16 (NumPy's own half, summed in f32)
/// and the wider dtypes round once, as ember's sum does. A bf16 axis longer than 2^12 is summed
/// as the others (a chain of that many adds would grow the graph past use).
TensorHandle reference_sum(const TensorHandle& x, int64_t axis);

}  // namespace ember::detail
