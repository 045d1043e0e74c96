// The composites behind the fused row ops (row_composites.h).
#include "tensor/row_composites.h"

#include "ember/tensor_ops.h"

namespace ember::tensor {

Standardized standardize(const TensorHandle& x, int64_t dim, double eps) {
  const TensorHandle mean = ops::mean_dim(x, dim);
  const TensorHandle centered = ops::sub(x, mean);
  const TensorHandle std = ops::sqrt(ops::add_scalar(ops::var(x, dim, 0), eps));
  return {ops::div(centered, std), mean, std};
}

RmsScaled rms_scale(const TensorHandle& rows, double eps) {
  const TensorHandle rms = ops::sqrt(ops::add_scalar(ops::mean_dim(ops::mul(rows, rows), 1), eps));
  return {ops::div(rows, rms), rms};
}

TensorHandle affine(TensorHandle y, const ops::OptionalHandle& weight,
                    const ops::OptionalHandle& bias) {
  if (weight) y = ops::mul(y, ops::cast(*weight, y.dtype()));
  if (bias) y = ops::add(y, ops::cast(*bias, y.dtype()));
  return y;
}

ClassTargets class_targets(const TensorHandle& targets, const ops::OptionalHandle& weight,
                           int64_t ignore_index, bool any_ignored, DType dtype) {
  ClassTargets out{targets, std::nullopt, std::nullopt};
  if (any_ignored) {
    out.ignored = ops::equal_elem(targets, ignore_index);
    out.indices = ops::mask_fill(targets, *out.ignored, 0);
  }
  if (weight) {
    out.weights = ops::cast(ops::select(*weight, 0, out.indices), dtype);
    if (out.ignored) out.weights = ops::mask_fill(*out.weights, *out.ignored, 0.0);
  } else if (out.ignored) {
    out.weights = ops::cast(ops::bool_not(*out.ignored), dtype);
  }
  return out;
}

TensorHandle zero_ignored(const TensorHandle& l, const ClassTargets& targets) {
  return targets.ignored ? ops::mask_fill(l, *targets.ignored, 0.0) : l;
}

TensorHandle class_weighted(const TensorHandle& log_probs, const ops::OptionalHandle& weight) {
  if (!weight) return log_probs;
  return ops::mul(log_probs, ops::reshape(ops::cast(*weight, log_probs.dtype()), {1, -1}));
}

namespace {

/// -weight[t_i] * log_probs[i, t_i] per row of log_probs [M, C] (0 for ignored samples).
TensorHandle picked_nll(const TensorHandle& log_probs, const ClassTargets& targets) {
  const TensorHandle picked =
      ops::reshape(ops::gather(log_probs, 1, ops::reshape(targets.indices, {-1, 1})), {-1});
  return zero_ignored(ops::neg(targets.weights ? ops::mul(picked, *targets.weights) : picked),
                      targets);
}

}  // namespace

TensorHandle cross_entropy_rows(const TensorHandle& log_probs, const ClassTargets& targets,
                                const ops::OptionalHandle& weight, double smoothing) {
  const TensorHandle nll = picked_nll(log_probs, targets);
  if (smoothing == 0.0) return nll;
  // PyTorch's smoothing term: -sum_c weight_c log_probs[i, c], 0 for ignored samples.
  const TensorHandle smooth = zero_ignored(
      ops::reshape(ops::neg(ops::sum_dim(class_weighted(log_probs, weight), 1)), {-1}), targets);
  const auto classes = static_cast<double>(log_probs.shape()[1]);
  return ops::add(ops::mul_scalar(nll, 1.0 - smoothing),
                  ops::mul_scalar(smooth, smoothing / classes));
}

}  // namespace ember::tensor
