// Layout ops: every one is a rearrangement of elements, expressed as strides over x's
// contiguous buffer (strided_index.h) and carried out by byte copies (element_copy.h).
#include <vector>

#include "backends/ndarray/element_copy.h"
#include "backends/ndarray/kernels.h"
#include "backends/ndarray/strided_index.h"
#include "ir/slice_range.h"

namespace ember::ndarray {
namespace {

/// Offsets in a contiguous tensor of shape of the elements ranges selects; view is the shape
/// of the selection (one element per step of each range).
std::vector<int64_t> slice_offsets(const Shape& shape, const std::vector<ir::SliceRange>& ranges,
                                   const Shape& view) {
  std::vector<int64_t> strides = shape.contiguous_strides();
  int64_t base = 0;
  for (std::size_t d = 0; d < ranges.size(); ++d) {
    base += ranges[d].start * strides[d];
    strides[d] = ir::slice_stride(ranges[d], strides[d]);
  }
  return strided_offsets(view, strides, base);
}

}  // namespace

TensorData run(const ir::Reshape& /*op*/, Inputs in, Outputs out) {
  const auto bytes = in[0]->bytes();
  return TensorData(std::vector<std::byte>(bytes.begin(), bytes.end()), out[0].shape, out[0].dtype);
}

TensorData run(const ir::Permute& op, Inputs in, Outputs out) {
  const std::vector<int64_t> source = in[0]->shape().contiguous_strides();
  std::vector<int64_t> strides;
  for (const int64_t axis : op.axes)
    strides.push_back(source[static_cast<std::size_t>(axis)]);
  return gather_elements(*in[0], strided_offsets(out[0].shape, strides), out[0].shape);
}

TensorData run(const ir::Flip& op, Inputs in, Outputs out) {
  const Shape& shape = in[0]->shape();
  std::vector<int64_t> strides = shape.contiguous_strides();
  int64_t base = 0;
  // A flipped axis walks backwards from its last element.
  for (const int64_t axis : op.axes) {
    const auto d = static_cast<std::size_t>(axis);
    base += (shape[d] - 1) * strides[d];
    strides[d] = -strides[d];
  }
  return gather_elements(*in[0], strided_offsets(shape, strides, base), out[0].shape);
}

TensorData run(const ir::Expand& /*op*/, Inputs in, Outputs out) {
  return gather_elements(*in[0], broadcast_offsets(in[0]->shape(), out[0].shape), out[0].shape);
}

TensorData run(const ir::Slice& op, Inputs in, Outputs out) {
  return gather_elements(*in[0], slice_offsets(in[0]->shape(), op.ranges, out[0].shape),
                         out[0].shape);
}

TensorData run(const ir::SliceAssign& op, Inputs in, Outputs /*out: x's meta*/) {
  const TensorData& values = *in[1];
  TensorData result = *in[0];
  scatter_elements(values, slice_offsets(result.shape(), op.ranges, values.shape()), result);
  return result;
}

TensorData run(const ir::Cat& op, Inputs in, Outputs out) {
  const auto dim = static_cast<std::size_t>(op.dim);
  const std::vector<int64_t> strides = out[0].shape.contiguous_strides();
  TensorData result = zeros_like(out[0]);
  int64_t position = 0;  // where along dim the next input starts
  for (const TensorData* part : in) {
    scatter_elements(*part, strided_offsets(part->shape(), strides, position * strides[dim]),
                     result);
    position += part->shape()[dim];
  }
  return result;
}

}  // namespace ember::ndarray
