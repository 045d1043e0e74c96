// The fused row ops as composites (fused_row_composites.h).
#include "tensor/fused_row_composites.h"

#include <cstddef>
#include <optional>
#include <type_traits>
#include <variant>

#include "ir/fused_rows.h"
#include "tensor/check.h"
#include "tensor/row_composites.h"

namespace ember::tensor {
namespace {

using ops::Handles;
using ops::OptionalHandle;

/// Per-row values [M] as a column [M, 1], to broadcast along the rows.
TensorHandle column(const TensorHandle& values) {
  return ops::reshape(values, {-1, 1});
}

/// Per-row values [M, 1] as [M] (the fused ops' statistics).
TensorHandle per_row(const TensorHandle& values) {
  return ops::reshape(values, {-1});
}

/// log sum_c exp(x[i, c]) of rows [M, C] as [M], shifted by the row's maximum.
TensorHandle log_sum_exp(const TensorHandle& rows) {
  const TensorHandle top = ops::max_dim(rows, 1);
  return per_row(ops::add(top, ops::log(ops::sum_dim(ops::exp(ops::sub(rows, top)), 1))));
}

/// [c == t_i] as rows [M, C] of dtype, for class indices [M].
TensorHandle one_hot_rows(const TensorHandle& indices, int64_t classes, DType dtype) {
  const TensorHandle all = ops::arange(
      0, classes, 1, TensorCreationOptions(indices.device()).with_dtype(indices.dtype()));
  return ops::cast(ops::equal(column(indices), all), dtype);
}

Handles composite(const ir::LayerNorm& op, const Handles& in) {
  const OptionalHandle weight = op.weight ? OptionalHandle(in[1]) : std::nullopt;
  const OptionalHandle bias = op.bias ? OptionalHandle(in[op.weight ? 2 : 1]) : std::nullopt;
  if (op.rms) {
    const RmsScaled scaled = rms_scale(in[0], op.eps);
    return {affine(scaled.y, weight, std::nullopt), per_row(ops::recip(scaled.rms))};
  }
  const Standardized z = standardize(in[0], 1, op.eps);
  return {affine(z.y, weight, bias), per_row(z.mean), per_row(ops::recip(z.std))};
}

/// With x̂ the normalized rows and gw = g * weight: dx = rstd (gw - mean(gw) - x̂ mean(gw x̂))
/// (rms: no mean(gw) term), dweight = sum over rows of g x̂, dbias = sum over rows of g.
Handles composite(const ir::LayerNormGrad& op, const Handles& in) {
  const ir::LayerNorm& norm = op.norm;
  std::size_t k = 0;
  const TensorHandle& x = in[k++];
  const OptionalHandle weight = norm.weight ? OptionalHandle(in[k++]) : std::nullopt;
  const OptionalHandle mean = norm.rms ? std::nullopt : OptionalHandle(in[k++]);
  const TensorHandle rstd = column(in[k++]);
  const TensorHandle& g = in[k];
  const TensorHandle normalized = ops::mul(mean ? ops::sub(x, column(*mean)) : x, rstd);
  const TensorHandle gw = weight ? ops::mul(g, *weight) : g;
  TensorHandle inner =
      ops::sub(gw, ops::mul(normalized, ops::mean_dim(ops::mul(gw, normalized), 1)));
  if (mean) inner = ops::sub(inner, ops::mean_dim(gw, 1));
  Handles grads{ops::mul(inner, rstd)};
  if (norm.weight) grads.push_back(per_row(ops::sum_dim(ops::mul(g, normalized), 0)));
  if (norm.bias) grads.push_back(per_row(ops::sum_dim(g, 0)));
  return grads;
}

/// The targets of a fused cross-entropy: any of them may be ignore_index (a recorded op cannot
/// know), so the ignored ones are masked.
ClassTargets fused_targets(const ir::CrossEntropy& op, const Handles& in) {
  const OptionalHandle weight = op.weight ? OptionalHandle(in[2]) : std::nullopt;
  return class_targets(in[1], weight, op.ignore_index, true, in[0].dtype());
}

Handles composite(const ir::CrossEntropy& op, const Handles& in) {
  const OptionalHandle weight = op.weight ? OptionalHandle(in[2]) : std::nullopt;
  const TensorHandle loss = cross_entropy_rows(ops::log_softmax(in[0], 1), fused_targets(op, in),
                                               weight, op.label_smoothing);
  return {loss, log_sum_exp(in[0])};
}

/// With p = exp(x - lse): dx[i, c] = g_i ((1 - s) w[t_i] (p - [c == t_i]) + s / C (W p - w_c)),
/// W = sum_c w_c (w = 1 without class weights: W = C), 0 for ignored rows.
Handles composite(const ir::CrossEntropyGrad& op, const Handles& in) {
  const ir::CrossEntropy& loss = op.loss;
  const TensorHandle& logits = in[0];
  const std::size_t lse = loss.weight ? 3 : 2;
  const TensorHandle probs = ops::exp(ops::sub(logits, column(in[lse])));
  const ClassTargets t = fused_targets(loss, in);
  const int64_t classes = logits.shape()[1];
  TensorHandle d = ops::mul(ops::sub(probs, one_hot_rows(t.indices, classes, logits.dtype())),
                            column(*t.weights));
  const double s = loss.label_smoothing;
  if (s != 0.0) {
    const TensorHandle smooth =
        loss.weight ? ops::sub(ops::mul(probs, ops::sum(in[2])), ops::reshape(in[2], {1, -1}))
                    : ops::sub_scalar(ops::mul_scalar(probs, static_cast<double>(classes)), 1.0);
    d = ops::add(ops::mul_scalar(d, 1.0 - s),
                 ops::mul_scalar(ops::mask_fill(smooth, column(*t.ignored), 0.0),
                                 s / static_cast<double>(classes)));
  }
  return {ops::mul(d, column(in[lse + 1]))};
}

/// softmax: y (g - sum(g y)); log_softmax: g - exp(y) sum(g); sums along the op's dim.
Handles composite(const ir::SoftmaxGrad& op, const Handles& in) {
  const TensorHandle& y = in[0];
  const TensorHandle& g = in[1];
  const int64_t dim = op.softmax.dim;
  if (op.softmax.log) return {ops::sub(g, ops::mul(ops::exp(y), ops::sum_dim(g, dim)))};
  return {ops::mul(y, ops::sub(g, ops::sum_dim(ops::mul(g, y), dim)))};
}

}  // namespace

ops::Handles composite_of(const ir::Op& op, const ops::Handles& inputs) {
  return std::visit(
      [&](const auto& o) -> Handles {
        if constexpr (ir::FusedRowOp<std::decay_t<decltype(o)>>) {
          return composite(o, inputs);
        } else {
          fail(ir::name(op), "has no composite: it is not a fused row op");
        }
      },
      op);
}

}  // namespace ember::tensor
