// The fused row ops behind layer_norm, rms_norm and cross_entropy (src/tensor/module.cpp): each
// function emits its op where the device's backend runs it fused (Backend::runs_fused_rows, or a
// tensor::FusedPathScope forces it) and the call needs nothing the op lacks, and returns nullopt
// otherwise, for the caller to run its composite.
#pragma once

#include <cstdint>
#include <optional>

#include "ember/functional_common.h"
#include "ember/tensor_handle.h"

namespace ember::tensor {

/// layer_norm (rms: rms_norm) of rows [M, N]: ir::LayerNorm's y. weight and bias, when given,
/// hold N values in any shape and dtype (reshaped to [N] and cast to rows' dtype).
std::optional<TensorHandle> fused_layer_norm(const TensorHandle& rows,
                                             const ops::OptionalHandle& weight,
                                             const ops::OptionalHandle& bias, double eps, bool rms);

/// cross_entropy's loss per row of logits rows [M, C] against Int targets [M] (checked, with
/// ignore_index as given): ir::CrossEntropy's loss. Not taken when the class weights need a
/// gradient (the fused backward gives none).
std::optional<TensorHandle> fused_cross_entropy(const TensorHandle& rows,
                                                const TensorHandle& targets,
                                                const ops::OptionalHandle& weight,
                                                int64_t ignore_index, double label_smoothing);

}  // namespace ember::tensor
