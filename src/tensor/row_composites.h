// The composites behind the fused row ops (ir/fused_rows.h), written once: layer_norm, rms_norm
// and cross_entropy (module.cpp) take them where the device's backend does not run the fused op,
// and each fused op's expansion (fused_row_composites.h), which Graph::replay and the ONNX export
// run where the op does not run fused, is made of them.
#pragma once

#include <cstdint>

#include "ember/functional_common.h"
#include "ember/tensor_handle.h"

namespace ember::tensor {

/// x standardized along dim: y = (x - mean) / std, std = sqrt(biased var + eps); mean and std
/// keep dim with size 1.
struct Standardized {
  TensorHandle y;
  TensorHandle mean;
  TensorHandle std;
};
Standardized standardize(const TensorHandle& x, int64_t dim, double eps);

/// rows [M, N] over their root mean square: y = rows / rms, rms = sqrt(mean(rows^2) + eps) [M, 1].
struct RmsScaled {
  TensorHandle y;
  TensorHandle rms;
};
RmsScaled rms_scale(const TensorHandle& rows, double eps);

/// y * weight + bias, each where given (cast to y's dtype, broadcast against y).
TensorHandle affine(TensorHandle y, const ops::OptionalHandle& weight,
                    const ops::OptionalHandle& bias);

/// Integer class targets, one per row of the class scores [M, C].
struct ClassTargets {
  /// The targets [M], ignored ones replaced by class 0 so that every index can be gathered.
  TensorHandle indices;
  /// Bool [M], true where the target is ignore_index; unset when none is.
  ops::OptionalHandle ignored;
  /// The weight of each sample [M] (weight[t_i], or 1 without class weights; 0 where ignored);
  /// unset when every sample weighs 1.
  ops::OptionalHandle weights;
};

/// targets [M] against class weights [C] (when given) in dtype. any_ignored says whether some
/// target may be ignore_index: where none is, no mask is made.
ClassTargets class_targets(const TensorHandle& targets, const ops::OptionalHandle& weight,
                           int64_t ignore_index, bool any_ignored, DType dtype);

/// Per-sample values with the ignored samples' set to 0.
TensorHandle zero_ignored(const TensorHandle& l, const ClassTargets& targets);

/// log_probs [M, C] weighted by the class weights (a [1, C] row), or as they are.
TensorHandle class_weighted(const TensorHandle& log_probs, const ops::OptionalHandle& weight);

/// cross_entropy's loss per row [M] of log_probs [M, C] (log_softmax of the logits), as
/// ir::CrossEntropy defines it: (1 - s) w[t_i] (-log_probs[i, t_i]) + s / C sum_c w_c
/// (-log_probs[i, c]), 0 for ignored samples.
TensorHandle cross_entropy_rows(const TensorHandle& log_probs, const ClassTargets& targets,
                                const ops::OptionalHandle& weight, double smoothing);

}  // namespace ember::tensor
