// Dtype-agnostic element moves: layout ops only rearrange elements, so they copy each element's
// bytes instead of instantiating one kernel per dtype.
#pragma once

#include <cstdint>
#include <span>

#include "ember/tensor_data.h"

namespace ember::ndarray {

/// dst element dst_index = src element src_index (same dtype).
void copy_element(const TensorData& src, int64_t src_index, TensorData& dst, int64_t dst_index);

/// A tensor of shape whose element i is src's element src_offsets[i].
TensorData gather_elements(const TensorData& src, std::span<const int64_t> src_offsets,
                           const Shape& shape);

/// Writes src's element i into dst's element dst_offsets[i], for every element of src.
void scatter_elements(const TensorData& src, std::span<const int64_t> dst_offsets, TensorData& dst);

}  // namespace ember::ndarray
