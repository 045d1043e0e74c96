// Index tensors in and out of kernels: any integer dtype in, as int64 values checked against
// the extent they index; int64 positions out, stored in the index dtype the op asks for.
#pragma once

#include <cstdint>
#include <vector>

#include "ember/tensor_data.h"
#include "ir/ops.h"

namespace ember::ndarray {

/// The values of integer tensor indices, each required to lie in [0, size) of dim dim:
/// InvalidArgument "[gather] index 7 out of range for dim 1 of size 5" otherwise. Negative
/// indices are errors here: the Tensor API has already mapped them.
std::vector<int64_t> checked_indices(const ir::Op& op, const TensorData& indices, int64_t dim,
                                     int64_t size);

/// positions stored in meta's integer dtype and shape.
TensorData index_data(const std::vector<int64_t>& positions, const ir::TensorMeta& meta);

}  // namespace ember::ndarray
