// Indexed reads and writes along one dim. Every index is checked (index_data.h) before any
// element moves, so a bad index leaves no partial result behind.
#include <span>
#include <vector>

#include "backends/ndarray/arithmetic.h"
#include "backends/ndarray/element.h"
#include "backends/ndarray/element_copy.h"
#include "backends/ndarray/index_data.h"
#include "backends/ndarray/kernels.h"
#include "backends/ndarray/strided_index.h"

namespace ember::ndarray {
namespace {

/// The checked index values of indices, addressing dim of x.
std::vector<int64_t> indices_into(const ir::Op& op, const TensorData& x, const TensorData& indices,
                                  int64_t dim) {
  return checked_indices(op, indices, dim, x.shape()[static_cast<std::size_t>(dim)]);
}

/// Writes value into slot: added (duplicates accumulate) or assigned (the last write wins).
template <typename T>
void update(T& slot, T value, ir::IndexUpdate update) {
  if (update == ir::IndexUpdate::Assign) {
    slot = value;
  } else {
    slot = store<T>(add_values(load(slot), load(value)));
  }
}

/// result[targets[i]] updated with values[i], for every i in order.
void update_elements(TensorData& result, const std::vector<int64_t>& targets,
                     const TensorData& values, ir::IndexUpdate mode) {
  visit_dtype(result.dtype(), [&]<typename T>() {
    const auto src = values.as<T>();
    auto dst = result.as_mut<T>();
    for (std::size_t i = 0; i < targets.size(); ++i)
      update(dst[targets[i]], src[i], mode);
  });
}

/// For Select/SelectAssign: for each element of a tensor shaped like x but with indices.size()
/// along dim (row-major), the offset in x of the element it maps to.
std::vector<int64_t> selected_offsets(const Shape& x_shape, const Shape& selected_shape,
                                      int64_t dim, const std::vector<int64_t>& indices) {
  const Lanes x_lanes = Lanes::along(x_shape, dim);
  const Lanes selected = Lanes::along(selected_shape, dim);
  std::vector<int64_t> offsets(static_cast<std::size_t>(selected_shape.num_elements()));
  for (int64_t lane = 0; lane < selected.count(); ++lane) {
    for (int64_t k = 0; k < selected.size; ++k) {
      offsets[selected.offset(lane, k)] = x_lanes.offset(lane, indices[k]);
    }
  }
  return offsets;
}

/// For Gather/Scatter: for each element of indices (row-major), the offset in x of the element
/// with the same position except along dim, where it takes the index's value.
std::vector<int64_t> indexed_offsets(const Shape& x_shape, const Shape& indices_shape, int64_t dim,
                                     const std::vector<int64_t>& indices) {
  const std::vector<int64_t> strides = x_shape.contiguous_strides();
  const auto axis = static_cast<std::size_t>(dim);
  std::vector<int64_t> offsets;
  offsets.reserve(indices.size());
  for_each_index(indices_shape, [&](std::span<const int64_t> position) {
    const int64_t index = indices[offsets.size()];  // the value at this position of indices
    int64_t offset = 0;
    for (std::size_t d = 0; d < position.size(); ++d) {
      offset += (d == axis ? index : position[d]) * strides[d];
    }
    offsets.push_back(offset);
  });
  return offsets;
}

}  // namespace

TensorData run(const ir::Select& op, Inputs in, Outputs out) {
  const TensorData& x = *in[0];
  const std::vector<int64_t> indices = indices_into(op, x, *in[1], op.dim);
  return gather_elements(x, selected_offsets(x.shape(), out[0].shape, op.dim, indices),
                         out[0].shape);
}

TensorData run(const ir::SelectAssign& op, Inputs in, Outputs /*out: x's meta*/) {
  const TensorData& values = *in[2];
  const std::vector<int64_t> indices = indices_into(op, *in[0], *in[1], op.dim);
  TensorData result = *in[0];
  // In row-major order of values: of several positions naming one index, the last writes last.
  update_elements(result, selected_offsets(result.shape(), values.shape(), op.dim, indices), values,
                  op.update);
  return result;
}

TensorData run(const ir::Gather& op, Inputs in, Outputs out) {
  const TensorData& x = *in[0];
  const std::vector<int64_t> indices = indices_into(op, x, *in[1], op.dim);
  return gather_elements(x, indexed_offsets(x.shape(), in[1]->shape(), op.dim, indices),
                         out[0].shape);
}

TensorData run(const ir::Scatter& op, Inputs in, Outputs /*out: x's meta*/) {
  const std::vector<int64_t> indices = indices_into(op, *in[0], *in[1], op.dim);
  TensorData result = *in[0];
  update_elements(result, indexed_offsets(result.shape(), in[1]->shape(), op.dim, indices), *in[2],
                  op.update);
  return result;
}

}  // namespace ember::ndarray
