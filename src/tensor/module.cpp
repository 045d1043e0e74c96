// Neural-network functions (module.h) as composites of public ops: autodiff records the ops they
// are made of, so they need no backward rule and no kernel. Only the argument checks are theirs.
// Attention, which may run as one fused op instead, is attention.cpp's.
#include "ember/functional.h"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

#include "tensor/check.h"
#include "tensor/fused_rows.h"
#include "tensor/row_composites.h"
#include "tensor/tensor_impl.h"

namespace ember::ops {
namespace {

using module::Reduction;
using tensor::fail;
using tensor::KindRule;

int64_t dim_size(const TensorHandle& x, std::size_t dim) {
  return x.shape()[dim];
}

/// x's dims as a vector.
Dims dims_of(const TensorHandle& x) {
  Dims dims;
  for (std::size_t i = 0; i < x.rank(); ++i)
    dims.push_back(dim_size(x, i));
  return dims;
}

void require_rank(const TensorHandle& x, std::size_t rank, std::string_view what,
                  std::string_view op) {
  if (x.rank() != rank) fail(op, what, ' ', x.shape(), " must have rank ", rank);
}

/// weight's shape must be shape (for a weight, a bias, running statistics).
void require_shape(const OptionalHandle& t, const Dims& dims, std::string_view what,
                   std::string_view op) {
  if (!t) return;
  tensor::require(*t, KindRule::Float, op);
  if (dims_of(*t) != dims) fail(op, what, ' ', t->shape(), " must have shape ", Shape(dims));
}

/// l reduced as reduction says; Mean and Sum keep every dim with size 1. BatchMean is kl_div's,
/// which handles it before: here it is op's bad argument.
TensorHandle reduce(const TensorHandle& l, Reduction reduction, std::string_view op) {
  switch (reduction) {
    case Reduction::None:
      return l;
    case Reduction::Sum:
      return reshape(sum(l), Dims(l.rank(), 1));
    case Reduction::Mean:
      return reshape(mean(l), Dims(l.rank(), 1));
    case Reduction::BatchMean:
      break;
  }
  fail(op, "reduction BatchMean is kl_div's only");
}

/// Both Float, of one shape.
void require_pair(const TensorHandle& input, const TensorHandle& target, std::string_view op) {
  tensor::require(input, KindRule::Float, op);
  tensor::require(target, KindRule::Float, op);
  if (input.shape() != target.shape()) {
    fail(op, "input ", input.shape(), " and target ", target.shape(), " differ in shape");
  }
}

/// x with its trailing normalized_shape dims flattened: [rest, product]; checks they match.
TensorHandle flatten_trailing(const TensorHandle& x, const Dims& normalized_shape,
                              std::string_view op) {
  tensor::require(x, KindRule::Float, op);
  const std::size_t n = normalized_shape.size();
  const Dims dims = dims_of(x);
  const bool fits =
      n >= 1 && n <= dims.size() &&
      Dims(dims.end() - static_cast<std::ptrdiff_t>(n), dims.end()) == normalized_shape;
  if (!fits) {
    fail(op, "normalized_shape ", Shape(normalized_shape), " must be the last dims of x ",
         x.shape());
  }
  return reshape(x, {-1, tensor::checked_num_elements(normalized_shape, op)});
}

/// A weight or bias of normalized_shape as one row's worth of values [N].
OptionalHandle flat(const OptionalHandle& p) {
  if (!p) return std::nullopt;
  return reshape(*p, {-1});
}

/// t [C] shaped [1, C, 1, ...] (x's rank) to broadcast along x's channel dim.
TensorHandle per_channel(const TensorHandle& t, const TensorHandle& x) {
  Dims dims(x.rank(), 1);
  dims[1] = dim_size(t, 0);
  return reshape(cast(t, x.dtype()), dims);
}

/// x [N, C, ...] with at least rank 2; returns C.
int64_t channels_of(const TensorHandle& x, std::string_view op) {
  tensor::require(x, KindRule::Float, op);
  if (x.rank() < 2) fail(op, "x ", x.shape(), " must have rank >= 2 ([N, C, ...])");
  return dim_size(x, 1);
}

double machine_epsilon(DType dtype) {
  switch (dtype) {
    case DType::F16:
      return 0.0009765625;  // 2^-10
    case DType::BF16:
      return 0.0078125;  // 2^-7
    case DType::F32:
      return std::numeric_limits<float>::epsilon();
    default:
      return std::numeric_limits<double>::epsilon();
  }
}

/// Class scores [N, C, d1, ...] as rows [N * d1 * ..., C] (the class dim moved last).
TensorHandle class_rows(const TensorHandle& scores) {
  if (scores.rank() == 2) return scores;
  Dims axes{0};
  for (std::size_t d = 2; d < scores.rank(); ++d)
    axes.push_back(static_cast<int64_t>(d));
  axes.push_back(1);
  return reshape(permute(scores, axes), {-1, dim_size(scores, 1)});
}

/// The shape of one loss per sample: scores [N, C, d1, ...] without the class dim.
Dims sample_dims(const TensorHandle& scores) {
  Dims dims = dims_of(scores);
  dims.erase(dims.begin() + 1);
  return dims;
}

/// A loss over the flattened samples given the shape of one loss per sample back: dims (None),
/// or dims' rank of size-1 dims (Mean, Sum: one value).
TensorHandle unflatten_samples(const TensorHandle& l, const Dims& dims, Reduction reduction) {
  return reshape(l, reduction == Reduction::None ? dims : Dims(dims.size(), 1));
}

void require_class_weight(const OptionalHandle& weight, int64_t classes, std::string_view op) {
  require_shape(weight, {classes}, "weight", op);
}

/// Checks scores [N, C, d1, ...] and Int targets [N, d1, ...] whose values (read back from the
/// device) are in [0, C) or ignore_index. Returns whether some target is ignore_index.
bool check_class_targets(const TensorHandle& scores, const TensorHandle& targets,
                         int64_t ignore_index, std::string_view op) {
  tensor::require(scores, KindRule::Float, op);
  tensor::require(targets, KindRule::Int, op);
  if (scores.rank() < 2) fail(op, "input ", scores.shape(), " must have rank >= 2 ([N, C, ...])");
  if (dims_of(targets) != sample_dims(scores)) {
    fail(op, "input ", scores.shape(), " and targets ", targets.shape(),
         " differ in batch size or trailing dims (targets are input's shape without dim 1)");
  }
  const int64_t classes = dim_size(scores, 1);
  // Targets made from host data carry their range: when it lies inside [0, classes) and leaves
  // out ignore_index, nothing is read back (a read waits for a GPU or a remote server).
  if (const auto& known = targets.impl()->known_values;
      known && known->within(classes) &&
      (ignore_index < known->lowest || ignore_index > known->highest))
    return false;
  // Note: a captured graph takes the path of targets without ignore_index (the one eager code
  // takes for them, so that a replayed step equals it bit for bit); an ignored or out-of-range
  // target makes the gather of the replay fail.
  if (tensor::is_symbolic(targets)) return false;
  bool any_ignored = false;
  for (int64_t t : into_data(targets).to_vector<int64_t>()) {
    if (t == ignore_index) {
      any_ignored = true;
    } else if (t < 0 || t >= classes) {
      fail(op, "target ", t, " is outside [0, ", classes, ") and is not ignore_index ",
           ignore_index);
    }
  }
  return any_ignored;
}

/// Integer class targets, checked and flattened to one per row of class_rows(scores), and the
/// shape of one loss per sample (targets' shape).
struct CheckedTargets {
  tensor::ClassTargets targets;
  Dims dims;
};

CheckedTargets class_targets(const TensorHandle& scores, const TensorHandle& targets,
                             const OptionalHandle& weight, int64_t ignore_index,
                             std::string_view op) {
  const bool any_ignored = check_class_targets(scores, targets, ignore_index, op);
  require_class_weight(weight, dim_size(scores, 1), op);
  return {tensor::class_targets(reshape(targets, {-1}), weight, ignore_index, any_ignored,
                                scores.dtype()),
          dims_of(targets)};
}

/// Per-sample values reduced, a Mean dividing by the sum of the samples' weights.
TensorHandle reduce_weighted(const TensorHandle& l, const OptionalHandle& weights,
                             Reduction reduction, std::string_view op) {
  if (reduction != Reduction::Mean || !weights) return reduce(l, reduction, op);
  return div(sum(l), sum(*weights));
}

/// nll_loss of log_probs rows [M, C], reduced, shaped as the targets.
TensorHandle reduced_nll(const TensorHandle& log_probs, const CheckedTargets& t,
                         Reduction reduction, std::string_view op) {
  const TensorHandle l = tensor::cross_entropy_rows(log_probs, t.targets, std::nullopt, 0.0);
  return unflatten_samples(reduce_weighted(l, t.targets.weights, reduction, op), t.dims, reduction);
}

TensorHandle cross_entropy_indices(const TensorHandle& logits, const TensorHandle& targets,
                                   const OptionalHandle& weight, Reduction reduction,
                                   double smoothing, int64_t ignore_index) {
  constexpr std::string_view op = "cross_entropy";
  const CheckedTargets t = class_targets(logits, targets, weight, ignore_index, op);
  const TensorHandle rows = class_rows(logits);
  // A captured graph takes the path of targets without ignore_index (check_class_targets): its
  // fused op is told that no target is ignored, so that one equal to ignore_index makes the
  // replay fail, as the composite's gather does, rather than count as a sample of loss 0.
  const int64_t ignored =
      tensor::is_symbolic(targets) ? std::numeric_limits<int64_t>::min() : ignore_index;
  std::optional<TensorHandle> l =
      tensor::fused_cross_entropy(rows, reshape(targets, {-1}), weight, ignored, smoothing);
  if (!l) l = tensor::cross_entropy_rows(log_softmax(rows, 1), t.targets, weight, smoothing);
  return unflatten_samples(reduce_weighted(*l, t.targets.weights, reduction, op), t.dims,
                           reduction);
}

TensorHandle cross_entropy_probabilities(const TensorHandle& logits, const TensorHandle& targets,
                                         const OptionalHandle& weight, Reduction reduction,
                                         double smoothing) {
  constexpr std::string_view op = "cross_entropy";
  require_pair(logits, targets, op);
  if (logits.rank() < 2) fail(op, "input ", logits.shape(), " must have rank >= 2 ([N, C, ...])");
  const int64_t classes = dim_size(logits, 1);
  require_class_weight(weight, classes, op);
  const TensorHandle y = add_scalar(mul_scalar(class_rows(targets), 1.0 - smoothing),
                                    smoothing / static_cast<double>(classes));
  const TensorHandle weighted = tensor::class_weighted(log_softmax(class_rows(logits), 1), weight);
  const TensorHandle l = reduce(reshape(neg(sum_dim(mul(weighted, y), 1)), {-1}), reduction, op);
  return unflatten_samples(l, sample_dims(logits), reduction);
}

/// target * (log(target) - input), taken as 0 where target is 0 (xlogy): log reads 1 there, so
/// neither the value nor the gradient sees log(0).
TensorHandle target_times_log_ratio(const TensorHandle& input, const TensorHandle& target) {
  const TensorHandle safe_target = mask_fill(target, lower_equal_elem(target, 0), 1.0);
  return mul(target, sub(log(safe_target), input));
}

}  // namespace

TensorHandle linear(const TensorHandle& x, const TensorHandle& weight, const OptionalHandle& bias) {
  tensor::require(x, KindRule::Float, "linear");
  tensor::require(weight, KindRule::Float, "linear");
  require_rank(weight, 2, "weight", "linear");
  const int64_t in = dim_size(weight, 1);
  const int64_t out = dim_size(weight, 0);
  if (dim_size(x, x.rank() - 1) != in) {
    fail("linear", "x ", x.shape(), " and weight ", weight.shape(), ": last dim ",
         dim_size(x, x.rank() - 1), " != in_features ", in);
  }
  require_shape(bias, {out}, "bias", "linear");
  Dims out_dims = dims_of(x);
  out_dims.back() = out;
  const TensorHandle rows = reshape(x, {-1, in});
  return reshape(
      tensor::affine(matmul(rows, transpose(cast(weight, x.dtype()))), std::nullopt, bias),
      out_dims);
}

TensorHandle embedding(const TensorHandle& weight, const TensorHandle& indices) {
  tensor::require(weight, KindRule::Float, "embedding");
  tensor::require(indices, KindRule::Int, "embedding");
  require_rank(weight, 2, "weight", "embedding");
  Dims out_dims = dims_of(indices);
  out_dims.push_back(dim_size(weight, 1));
  // The backend's select finds a bad index (reading the indices here would wait for a device),
  // and names itself: the error is the embedding's.
  try {
    return reshape(select(weight, 0, reshape(indices, {-1})), out_dims);
  } catch (const InvalidArgument& e) {
    tensor::rethrow_renamed(e, "select", "embedding");
  }
}

TensorHandle layer_norm(const TensorHandle& x, const Dims& normalized_shape,
                        const OptionalHandle& weight, const OptionalHandle& bias, double eps) {
  const TensorHandle rows = flatten_trailing(x, normalized_shape, "layer_norm");
  require_shape(weight, normalized_shape, "weight", "layer_norm");
  require_shape(bias, normalized_shape, "bias", "layer_norm");
  if (auto y = tensor::fused_layer_norm(rows, weight, bias, eps, false))
    return reshape(*y, dims_of(x));
  return reshape(tensor::affine(tensor::standardize(rows, 1, eps).y, flat(weight), flat(bias)),
                 dims_of(x));
}

TensorHandle rms_norm(const TensorHandle& x, const Dims& normalized_shape,
                      const OptionalHandle& weight, std::optional<double> eps) {
  const TensorHandle rows = flatten_trailing(x, normalized_shape, "rms_norm");
  require_shape(weight, normalized_shape, "weight", "rms_norm");
  const double e = eps.value_or(machine_epsilon(x.dtype()));
  if (auto y = tensor::fused_layer_norm(rows, weight, std::nullopt, e, true))
    return reshape(*y, dims_of(x));
  return reshape(tensor::affine(tensor::rms_scale(rows, e).y, flat(weight), std::nullopt),
                 dims_of(x));
}

TensorHandle group_norm(const TensorHandle& x, int64_t groups, const OptionalHandle& weight,
                        const OptionalHandle& bias, double eps) {
  const int64_t c = channels_of(x, "group_norm");
  if (groups <= 0 || c % groups != 0) {
    fail("group_norm", "groups ", groups, " must be positive and divide the ", c, " channels of x ",
         x.shape());
  }
  require_shape(weight, {c}, "weight", "group_norm");
  require_shape(bias, {c}, "bias", "group_norm");
  const TensorHandle grouped = reshape(x, {dim_size(x, 0), groups, -1});
  TensorHandle y = reshape(tensor::standardize(grouped, 2, eps).y, dims_of(x));
  if (weight) y = mul(y, per_channel(*weight, x));
  if (bias) y = add(y, per_channel(*bias, x));
  return y;
}

BatchNormResult batch_norm(const TensorHandle& x, const OptionalHandle& running_mean,
                           const OptionalHandle& running_var, const OptionalHandle& weight,
                           const OptionalHandle& bias, bool training, double momentum, double eps) {
  const int64_t c = channels_of(x, "batch_norm");
  require_shape(running_mean, {c}, "running_mean", "batch_norm");
  require_shape(running_var, {c}, "running_var", "batch_norm");
  require_shape(weight, {c}, "weight", "batch_norm");
  require_shape(bias, {c}, "bias", "batch_norm");
  // [C, everything else]: each channel's values in one row.
  const TensorHandle rows = reshape(swap_dims(reshape(x, {dim_size(x, 0), c, -1}), 0, 1), {c, -1});
  BatchNormResult result{TensorHandle(), running_mean, running_var};
  TensorHandle mean_c;
  TensorHandle var_c;
  if (training) {
    const int64_t n = dim_size(rows, 1);
    if (n <= 1)
      fail("batch_norm", "x ", x.shape(), " has ", n, " value per channel; training needs more");
    mean_c = mean_dim(rows, 1);
    var_c = var(rows, 1, 0);
    auto blend = [&](const OptionalHandle& running, const TensorHandle& batch) -> OptionalHandle {
      if (!running) return std::nullopt;
      const TensorHandle stat = cast(reshape(detach(batch), {c}), running->dtype());
      return add(mul_scalar(*running, 1.0 - momentum), mul_scalar(stat, momentum));
    };
    result.running_mean = blend(running_mean, mean_c);
    result.running_var = blend(running_var, var(rows, 1, 1));
  } else {
    if (!running_mean || !running_var) {
      fail("batch_norm", "inference (training false) needs running_mean and running_var");
    }
    mean_c = *running_mean;
    var_c = *running_var;
  }
  const TensorHandle centered = sub(x, per_channel(reshape(mean_c, {c}), x));
  const TensorHandle std_c = sqrt(add_scalar(per_channel(reshape(var_c, {c}), x), eps));
  TensorHandle y = div(centered, std_c);
  if (weight) y = mul(y, per_channel(*weight, x));
  if (bias) y = add(y, per_channel(*bias, x));
  result.output = y;
  return result;
}

TensorHandle dropout(const TensorHandle& x, double p, bool training) {
  tensor::require(x, KindRule::Float, "dropout");
  if (!(p >= 0.0 && p < 1.0)) fail("dropout", "p ", p, " is outside [0, 1)");
  if (!training || p == 0.0) return x;
  const TensorCreationOptions on = TensorCreationOptions(x.device()).with_dtype(x.dtype());
  const TensorHandle keep =
      random(x.shape(), Distribution::bernoulli(1.0 - p), on, TensorKind::Float);
  return mul(x, mul_scalar(keep, 1.0 / (1.0 - p)));
}

TensorHandle mse_loss(const TensorHandle& input, const TensorHandle& target, Reduction reduction) {
  require_pair(input, target, "mse_loss");
  const TensorHandle d = sub(input, target);
  return reduce(mul(d, d), reduction, "mse_loss");
}

TensorHandle l1_loss(const TensorHandle& input, const TensorHandle& target, Reduction reduction) {
  require_pair(input, target, "l1_loss");
  return reduce(abs(sub(input, target)), reduction, "l1_loss");
}

TensorHandle huber_loss(const TensorHandle& input, const TensorHandle& target, Reduction reduction,
                        double delta) {
  require_pair(input, target, "huber_loss");
  if (!(delta > 0.0)) fail("huber_loss", "delta ", delta, " must be positive");
  const TensorHandle d = sub(input, target);
  const TensorHandle ad = abs(d);
  const TensorHandle quadratic = mul_scalar(mul(d, d), 0.5);
  const TensorHandle linear_part = mul_scalar(sub_scalar(ad, 0.5 * delta), delta);
  return reduce(where(lower_equal_elem(ad, delta), quadratic, linear_part), reduction,
                "huber_loss");
}

TensorHandle binary_cross_entropy_with_logits(const TensorHandle& logits,
                                              const TensorHandle& target,
                                              const OptionalHandle& pos_weight,
                                              Reduction reduction) {
  constexpr std::string_view op = "binary_cross_entropy_with_logits";
  require_pair(logits, target, op);
  // log(1 + exp(-x)) = log1p(exp(-|x|)) + max(-x, 0): exp never overflows.
  const TensorHandle softplus_neg = add(log1p(exp(neg(abs(logits)))), relu(neg(logits)));
  TensorHandle scale = softplus_neg;
  if (pos_weight) {
    tensor::require(*pos_weight, KindRule::Float, op);
    const TensorHandle pw = cast(*pos_weight, logits.dtype());
    scale = mul(add_scalar(mul(sub_scalar(pw, 1.0), target), 1.0), softplus_neg);
  }
  return reduce(add(mul(rsub_scalar(target, 1.0), logits), scale), reduction, op);
}

TensorHandle nll_loss(const TensorHandle& log_probs, const TensorHandle& targets,
                      const OptionalHandle& weight, Reduction reduction, int64_t ignore_index) {
  constexpr std::string_view op = "nll_loss";
  const CheckedTargets t = class_targets(log_probs, targets, weight, ignore_index, op);
  return reduced_nll(class_rows(log_probs), t, reduction, op);
}

TensorHandle cross_entropy(const TensorHandle& logits, const TensorHandle& targets,
                           const OptionalHandle& weight, Reduction reduction,
                           double label_smoothing, int64_t ignore_index) {
  if (!(label_smoothing >= 0.0 && label_smoothing <= 1.0)) {
    fail("cross_entropy", "label_smoothing ", label_smoothing, " is outside [0, 1]");
  }
  tensor::require(targets, KindRule::Numeric, "cross_entropy");
  if (kind_of(targets.dtype()) == TensorKind::Int) {
    return cross_entropy_indices(logits, targets, weight, reduction, label_smoothing, ignore_index);
  }
  return cross_entropy_probabilities(logits, targets, weight, reduction, label_smoothing);
}

TensorHandle kl_div(const TensorHandle& input, const TensorHandle& target, Reduction reduction,
                    bool log_target) {
  constexpr std::string_view op = "kl_div";
  require_pair(input, target, op);
  const TensorHandle l =
      log_target ? mul(exp(target), sub(target, input)) : target_times_log_ratio(input, target);
  if (reduction != Reduction::BatchMean) return reduce(l, reduction, op);
  return div_scalar(reduce(l, Reduction::Sum, op), static_cast<double>(dim_size(input, 0)));
}

}  // namespace ember::ops
