// Neural-network functions (torch.nn.functional's names, formulas and defaults) as free functions
// in ember::module: linear and embedding, the normalizations, dropout, the losses and scaled
// dot-product attention; convolution, pooling and resampling come from convolution.h, pooling.h and
// interpolate.h, included here. Each function of this file is a composite of public ops, so
// autodiff records it and every device runs it with no kernel of its own; attention, layer_norm,
// rms_norm and cross_entropy (integer targets) run as one fused op instead where the device's
// backend has a kernel for it (attention: cuda; the others: cpu and flex), with the same values
// within rounding. The untyped functions (ember::ops, on TensorHandle) come first; the typed
// wrappers on Tensor<D> follow.
//
// Losses return the per-element loss for Reduction::None; for Mean and Sum the result keeps
// every dim with size 1 (a one-element tensor, as ember's reductions keep their dims).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <type_traits>

#include "ember/convolution.h"  // IWYU pragma: export
#include "ember/functional_common.h"
#include "ember/interpolate.h"  // IWYU pragma: export
#include "ember/pooling.h"      // IWYU pragma: export
#include "ember/tensor.h"

namespace ember::ops {

/// x [..., in] matmul weight^T (weight [out, in], PyTorch's layout) + bias [out] → [..., out].
TensorHandle linear(const TensorHandle& x, const TensorHandle& weight, const OptionalHandle& bias);
/// The rows of weight [num, dim] at indices (Int, any rank) → indices' shape + [dim]. An index
/// outside [0, num) is an InvalidArgument.
TensorHandle embedding(const TensorHandle& weight, const TensorHandle& indices);
/// (x - mean) / sqrt(var + eps) * weight + bias, mean and biased var over the trailing dims
/// normalized_shape (which must equal x's last dims); weight and bias have normalized_shape.
TensorHandle layer_norm(const TensorHandle& x, const Dims& normalized_shape,
                        const OptionalHandle& weight, const OptionalHandle& bias, double eps);
/// x / sqrt(mean(x^2) + eps) * weight over the trailing dims normalized_shape; eps unset: the
/// machine epsilon of x's dtype (as PyTorch).
TensorHandle rms_norm(const TensorHandle& x, const Dims& normalized_shape,
                      const OptionalHandle& weight, std::optional<double> eps);
/// x [N, C, ...] normalized over each of groups groups of C / groups channels (and every
/// position), then weight [C] * . + bias [C] per channel.
TensorHandle group_norm(const TensorHandle& x, int64_t groups, const OptionalHandle& weight,
                        const OptionalHandle& bias, double eps);

/// batch_norm's output and the running statistics to use next (unset when none were given).
struct BatchNormResult {
  TensorHandle output;
  OptionalHandle running_mean;
  OptionalHandle running_var;
};
/// x [N, C, ...] normalized per channel. Training: with the batch's mean and biased variance
/// (more than one value per channel needed); running stats [C], when given, come back as
/// (1 - momentum) * running + momentum * batch statistic (unbiased variance), detached.
/// Inference: with running_mean and running_var (both required), which come back unchanged.
BatchNormResult batch_norm(const TensorHandle& x, const OptionalHandle& running_mean,
                           const OptionalHandle& running_var, const OptionalHandle& weight,
                           const OptionalHandle& bias, bool training, double momentum, double eps);
/// Training: x * Bernoulli(1 - p) mask / (1 - p), drawn on x's device (seeded by its seed);
/// otherwise x. p must be in [0, 1).
TensorHandle dropout(const TensorHandle& x, double p, bool training);

/// (input - target)^2.
TensorHandle mse_loss(const TensorHandle& input, const TensorHandle& target,
                      module::Reduction reduction);
/// |input - target|.
TensorHandle l1_loss(const TensorHandle& input, const TensorHandle& target,
                     module::Reduction reduction);
/// d = |input - target|: d^2 / 2 where d <= delta, else delta * (d - delta / 2); delta > 0.
TensorHandle huber_loss(const TensorHandle& input, const TensorHandle& target,
                        module::Reduction reduction, double delta);
/// -[pw * y * log sigmoid(x) + (1 - y) * log(1 - sigmoid(x))], computed as
/// (1 - y) x + (1 + (pw - 1) y) (log1p(exp(-|x|)) + max(-x, 0)); pos_weight broadcasts to x.
TensorHandle binary_cross_entropy_with_logits(const TensorHandle& logits,
                                              const TensorHandle& target,
                                              const OptionalHandle& pos_weight,
                                              module::Reduction reduction);
/// -weight[t_i] * log_probs[i, t_i] for log_probs [N, C] and Int targets [N] in [0, C), or
/// log_probs [N, C, d1, ...] and targets [N, d1, ...] (one loss per position, shaped as
/// targets). A target equal to ignore_index contributes 0 and is left out of Mean's divisor;
/// any other target outside [0, C) is an InvalidArgument. Mean is the sum divided by the sum of
/// weight[t_i] over the samples kept (their count without weights).
TensorHandle nll_loss(const TensorHandle& log_probs, const TensorHandle& targets,
                      const OptionalHandle& weight, module::Reduction reduction,
                      int64_t ignore_index = -100);
/// From logits [N, C] (or [N, C, d1, ...], as nll_loss). Int targets [N] (or [N, d1, ...]):
/// (1 - s) * nll_loss(log_softmax, ignore_index) + s / C * the smoothing term
/// -sum_c weight_c log_probs[i, c] (0 for ignored samples), both reduced as nll_loss. Float
/// targets of logits' shape (probabilities): -sum_c weight_c y'_ic log_probs[i, c],
/// y' = (1 - s) y + s / C, Mean divides by the number of samples; ignore_index is unused.
/// s = label_smoothing in [0, 1].
TensorHandle cross_entropy(const TensorHandle& logits, const TensorHandle& targets,
                           const OptionalHandle& weight, module::Reduction reduction,
                           double label_smoothing, int64_t ignore_index = -100);
/// target * (log(target) - input) (0 where target is 0) for input log-probabilities, or with
/// log_target (target given as log-probabilities) exp(target) * (target - input). Mean is over
/// every element; BatchMean (PyTorch's "batchmean", the KL divergence proper) is the sum divided
/// by the batch size, input's dim 0.
TensorHandle kl_div(const TensorHandle& input, const TensorHandle& target,
                    module::Reduction reduction, bool log_target = false);
/// softmax(q k^T * scale + mask) v for q [..., L, E], k [..., S, E], v [..., S, Ev] (equal
/// ranks, batch dims broadcast). mask broadcasts to [..., L, S]: Bool (true = attend) or Float
/// (added). is_causal keeps position j <= i only (no mask allowed with it). dropout_p applies
/// dropout to the attention weights. scale unset: 1 / sqrt(E). A row with no key to attend is
/// NaN. Where the device's backend has a fused (flash-style) kernel for these inputs (cuda: f32,
/// f16 and bf16, head dims up to 128), dropout_p is 0, q, k and v share their batch dims and
/// dtype, and a Float mask needs no gradient, it runs as one op (no [L, S] matrix is stored);
/// everywhere else as the composite of matmul, softmax and the mask ops. Both give the same
/// values within rounding.
TensorHandle scaled_dot_product_attention(const TensorHandle& q, const TensorHandle& k,
                                          const TensorHandle& v, const OptionalHandle& mask,
                                          bool is_causal, double dropout_p,
                                          std::optional<double> scale);

}  // namespace ember::ops

namespace ember::module {

/// x [..., in] times weight [out, in] transposed, plus bias [out].
template <std::size_t D>
Tensor<D> linear(const Tensor<D>& x, const Tensor<2>& weight,
                 const std::optional<Tensor<1>>& bias = std::nullopt) {
  return Tensor<D>(ops::linear(x.handle(), weight.handle(), detail::handle_of(bias)));
}
/// The rows of weight [num, dim] at indices → indices' shape + [dim].
template <std::size_t D>
Tensor<D + 1> embedding(const Tensor<2>& weight, const Tensor<D, Int>& indices) {
  return Tensor<D + 1>(ops::embedding(weight.handle(), indices.handle()));
}
/// Normalizes over the W trailing dims normalized_shape: layer_norm(x, {4}) or
/// layer_norm<2>(x, {3, 4}, weight, bias).
template <std::size_t W = 1, std::size_t D>
Tensor<D> layer_norm(const Tensor<D>& x, const typename Tensor<W>::Dims& normalized_shape,
                     const std::optional<std::type_identity_t<Tensor<W>>>& weight = std::nullopt,
                     const std::optional<std::type_identity_t<Tensor<W>>>& bias = std::nullopt,
                     double eps = 1e-5) {
  return Tensor<D>(ops::layer_norm(x.handle(), detail::dims_of(normalized_shape),
                                   detail::handle_of(weight), detail::handle_of(bias), eps));
}
/// x / sqrt(mean(x^2) + eps) * weight over the W trailing dims normalized_shape.
template <std::size_t W = 1, std::size_t D>
Tensor<D> rms_norm(const Tensor<D>& x, const typename Tensor<W>::Dims& normalized_shape,
                   const std::optional<std::type_identity_t<Tensor<W>>>& weight = std::nullopt,
                   std::optional<double> eps = std::nullopt) {
  return Tensor<D>(
      ops::rms_norm(x.handle(), detail::dims_of(normalized_shape), detail::handle_of(weight), eps));
}
/// x [N, C, ...] normalized in groups of channels; weight and bias [C].
template <std::size_t D>
Tensor<D> group_norm(const Tensor<D>& x, int64_t groups,
                     const std::optional<Tensor<1>>& weight = std::nullopt,
                     const std::optional<Tensor<1>>& bias = std::nullopt, double eps = 1e-5) {
  return Tensor<D>(
      ops::group_norm(x.handle(), groups, detail::handle_of(weight), detail::handle_of(bias), eps));
}

/// batch_norm's output and the running statistics to keep.
template <std::size_t D>
struct BatchNorm {
  Tensor<D> output;
  std::optional<Tensor<1>> running_mean;
  std::optional<Tensor<1>> running_var;
};
/// x [N, C, ...] normalized per channel (see ops::batch_norm).
template <std::size_t D>
BatchNorm<D> batch_norm(const Tensor<D>& x, const std::optional<Tensor<1>>& running_mean,
                        const std::optional<Tensor<1>>& running_var,
                        const std::optional<Tensor<1>>& weight = std::nullopt,
                        const std::optional<Tensor<1>>& bias = std::nullopt, bool training = false,
                        double momentum = 0.1, double eps = 1e-5) {
  ops::BatchNormResult r =
      ops::batch_norm(x.handle(), detail::handle_of(running_mean), detail::handle_of(running_var),
                      detail::handle_of(weight), detail::handle_of(bias), training, momentum, eps);
  return {Tensor<D>(r.output), detail::tensor_of<1>(r.running_mean),
          detail::tensor_of<1>(r.running_var)};
}
/// Zeroes each element with probability p in training, scaling the rest by 1 / (1 - p).
template <std::size_t D>
Tensor<D> dropout(const Tensor<D>& x, double p = 0.5, bool training = true) {
  return Tensor<D>(ops::dropout(x.handle(), p, training));
}

template <std::size_t D>
Tensor<D> mse_loss(const Tensor<D>& input, const Tensor<D>& target,
                   Reduction reduction = Reduction::Mean) {
  return Tensor<D>(ops::mse_loss(input.handle(), target.handle(), reduction));
}
template <std::size_t D>
Tensor<D> l1_loss(const Tensor<D>& input, const Tensor<D>& target,
                  Reduction reduction = Reduction::Mean) {
  return Tensor<D>(ops::l1_loss(input.handle(), target.handle(), reduction));
}
template <std::size_t D>
Tensor<D> huber_loss(const Tensor<D>& input, const Tensor<D>& target,
                     Reduction reduction = Reduction::Mean, double delta = 1.0) {
  return Tensor<D>(ops::huber_loss(input.handle(), target.handle(), reduction, delta));
}
/// pos_weight [C] weighs the positives of each class (x's last dim).
template <std::size_t D>
Tensor<D> binary_cross_entropy_with_logits(
    const Tensor<D>& logits, const Tensor<D>& target, Reduction reduction = Reduction::Mean,
    const std::optional<Tensor<1>>& pos_weight = std::nullopt) {
  return Tensor<D>(ops::binary_cross_entropy_with_logits(logits.handle(), target.handle(),
                                                         detail::handle_of(pos_weight), reduction));
}
/// log_probs [N, C] with targets [N] → [N] (None) or [1]; log_probs [N, C, d1, ...] with targets
/// [N, d1, ...] → targets' shape (None) or all dims 1. Targets equal to ignore_index count 0.
template <std::size_t D>
Tensor<D> nll_loss(const Tensor<D + 1>& log_probs, const Tensor<D, Int>& targets,
                   const std::optional<Tensor<1>>& weight = std::nullopt,
                   Reduction reduction = Reduction::Mean, int64_t ignore_index = -100) {
  return Tensor<D>(ops::nll_loss(log_probs.handle(), targets.handle(), detail::handle_of(weight),
                                 reduction, ignore_index));
}
/// logits [N, C] with class indices [N] → [N] (None) or [1]; logits [N, C, d1, ...] with
/// targets [N, d1, ...] → targets' shape (None) or all dims 1.
template <std::size_t D>
Tensor<D> cross_entropy(const Tensor<D + 1>& logits, const Tensor<D, Int>& targets,
                        const std::optional<Tensor<1>>& weight = std::nullopt,
                        Reduction reduction = Reduction::Mean, double label_smoothing = 0.0,
                        int64_t ignore_index = -100) {
  return Tensor<D>(ops::cross_entropy(logits.handle(), targets.handle(), detail::handle_of(weight),
                                      reduction, label_smoothing, ignore_index));
}
/// logits [N, C, ...] with class probabilities of the same shape → [N, ...] without the class
/// dim (None) or all dims 1.
template <std::size_t D>
Tensor<D - 1> cross_entropy(const Tensor<D>& logits, const Tensor<D>& probabilities,
                            const std::optional<Tensor<1>>& weight = std::nullopt,
                            Reduction reduction = Reduction::Mean, double label_smoothing = 0.0) {
  static_assert(D >= 2, "cross_entropy takes logits [N, C, ...]");
  return Tensor<D - 1>(ops::cross_entropy(logits.handle(), probabilities.handle(),
                                          detail::handle_of(weight), reduction, label_smoothing));
}
/// input log-probabilities against target probabilities (log-probabilities with log_target);
/// Reduction::BatchMean divides the sum by input's dim 0.
template <std::size_t D>
Tensor<D> kl_div(const Tensor<D>& input, const Tensor<D>& target,
                 Reduction reduction = Reduction::Mean, bool log_target = false) {
  return Tensor<D>(ops::kl_div(input.handle(), target.handle(), reduction, log_target));
}

/// softmax(q k^T * scale + mask) v (see ops::scaled_dot_product_attention); mask: Bool
/// (true = attend) or Float (added).
template <std::size_t D, typename MaskKind = Bool>
Tensor<D> scaled_dot_product_attention(
    const Tensor<D>& q, const Tensor<D>& k, const Tensor<D>& v,
    const std::optional<std::type_identity_t<Tensor<D, MaskKind>>>& mask = std::nullopt,
    bool is_causal = false, double dropout_p = 0.0, std::optional<double> scale = std::nullopt) {
  return Tensor<D>(ops::scaled_dot_product_attention(
      q.handle(), k.handle(), v.handle(), detail::handle_of(mask), is_causal, dropout_p, scale));
}

}  // namespace ember::module
