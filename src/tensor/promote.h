// Dtype promotion between tensors of one kind: operands are cast to ember::promote_types of
// their dtypes before an op that needs a single dtype runs.
#pragma once

#include <string_view>
#include <utility>

#include "ember/tensor_ops.h"

namespace ember::tensor {

/// xs cast to their common dtype; InvalidArgument "[op] ..." when their kinds differ.
ops::Handles promote(const ops::Handles& xs, std::string_view op);
/// promote for two tensors.
std::pair<TensorHandle, TensorHandle> promote(const TensorHandle& a, const TensorHandle& b,
                                              std::string_view op);

}  // namespace ember::tensor
