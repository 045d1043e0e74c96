// ops::scaled_dot_product_attention: the composite of matmul, softmax and the mask ops on every
// device, or the fused op ir::Attention where the device's backend runs it fused
// (Backend::runs_fused_attention: cuda) and the call asks nothing it does not compute: no
// dropout, q, k and v of one batch shape, a mask that does not enlarge the result, and no
// gradient for a Float mask (the fused backward gives none). The composite is the fused op's
// oracle: both give the same values within rounding (tests/tensor/attention_path_test.cpp).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

#include "ember/functional.h"
#include "ir/ops.h"
#include "tensor/check.h"
#include "tensor/dispatch.h"
#include "tensor/fused_path.h"
#include "tensor/tensor_impl.h"

namespace ember::ops {
namespace {

using tensor::fail;
using tensor::KindRule;

constexpr std::string_view kOp = "scaled_dot_product_attention";

int64_t dim_size(const TensorHandle& x, std::size_t dim) {
  return x.shape()[dim];
}

/// x's dims but the last `drop`.
std::vector<int64_t> leading_dims(const TensorHandle& x, std::size_t drop) {
  const std::vector<int64_t>& dims = x.shape().dims();
  return {dims.begin(), dims.end() - static_cast<std::ptrdiff_t>(drop)};
}

/// The [L, S] Bool mask of positions j <= i, with leading size-1 dims up to rank.
TensorHandle causal_mask(const TensorHandle& q, const TensorHandle& k) {
  const int64_t l = dim_size(q, q.rank() - 2);
  const int64_t s = dim_size(k, k.rank() - 2);
  const TensorCreationOptions on(q.device());
  const TensorHandle rows = reshape(arange(0, l, 1, on), {l, 1});
  const TensorHandle cols = reshape(arange(0, s, 1, on), {1, s});
  return unsqueeze(lower_equal(cols, rows), q.rank());
}

bool is_bool_mask(const TensorHandle& mask) {
  tensor::require(mask, KindRule::Any, kOp);
  if (kind_of(mask.dtype()) == TensorKind::Bool) return true;
  if (kind_of(mask.dtype()) != TensorKind::Float) {
    fail(kOp, "mask of dtype ", mask.dtype(), " must be Bool or Float");
  }
  return false;
}

/// scores with the attention mask applied: -inf where a Bool mask is false, + a Float mask.
TensorHandle masked_scores(const TensorHandle& scores, const TensorHandle& mask) {
  if (is_bool_mask(mask)) {
    return mask_fill(scores, bool_not(mask), -std::numeric_limits<double>::infinity());
  }
  return add(scores, cast(mask, scores.dtype()));
}

void check_attention(const TensorHandle& q, const TensorHandle& k, const TensorHandle& v) {
  for (const TensorHandle* t : {&q, &k, &v})
    tensor::require(*t, KindRule::Float, kOp);
  const std::size_t r = q.rank();
  if (r < 2 || k.rank() != r || v.rank() != r) {
    fail(kOp, "q ", q.shape(), ", k ", k.shape(), " and v ", v.shape(), " must have one rank >= 2");
  }
  if (dim_size(q, r - 1) != dim_size(k, r - 1) || dim_size(k, r - 2) != dim_size(v, r - 2)) {
    fail(kOp, "q ", q.shape(), ", k ", k.shape(), ", v ", v.shape(),
         ": q and k need one last dim, k and v one sequence length");
  }
}

TensorHandle composite(const TensorHandle& q, const TensorHandle& k, const TensorHandle& v,
                       const OptionalHandle& mask, bool is_causal, double dropout_p, double scale) {
  TensorHandle scores = mul_scalar(matmul(q, transpose(k)), scale);
  if (mask) scores = masked_scores(scores, *mask);
  if (is_causal) scores = masked_scores(scores, causal_mask(q, k));
  return matmul(dropout(softmax(scores, -1), dropout_p, true), v);
}

/// Whether the mask lies within the scores [..., L, S] (no dim of its own enlarges the result).
bool mask_fits(const TensorHandle& mask, const TensorHandle& q, const TensorHandle& k) {
  std::vector<int64_t> scores = leading_dims(q, 1);
  scores.push_back(dim_size(k, k.rank() - 2));
  if (mask.rank() > scores.size()) return false;
  const std::size_t skip = scores.size() - mask.rank();
  for (std::size_t d = 0; d < mask.rank(); ++d) {
    const int64_t m = dim_size(mask, d);
    if (m != 1 && m != scores[skip + d]) return false;
  }
  return true;
}

/// Whether ir::Attention computes what the call asks: the composite's result, with gradients for
/// q, k and v only.
bool fused_takes(const TensorHandle& q, const TensorHandle& k, const TensorHandle& v,
                 const OptionalHandle& mask, double dropout_p) {
  if (dropout_p != 0.0 || k.dtype() != q.dtype() || v.dtype() != q.dtype()) return false;
  const std::vector<int64_t> batch = leading_dims(q, 2);
  if (leading_dims(k, 2) != batch || leading_dims(v, 2) != batch) return false;
  if (!mask) return true;
  const bool tracked_float = !is_bool_mask(*mask) && tensor::impl_of(*mask, kOp).node != nullptr;
  return !tracked_float && mask_fits(*mask, q, k);
}

/// Whether the device's backend runs op on these inputs fused (or a scope forces the path).
bool backend_fuses(const ir::Attention& op, const Handles& inputs) {
  if (const std::optional<bool> forced = tensor::forced_fused()) return *forced;
  return tensor::impl_of(inputs.front(), kOp)
      .context->backend()
      .runs_fused_attention(op, tensor::metas_of(inputs, kOp));
}

}  // namespace

TensorHandle scaled_dot_product_attention(const TensorHandle& q, const TensorHandle& k,
                                          const TensorHandle& v, const OptionalHandle& mask,
                                          bool is_causal, double dropout_p,
                                          std::optional<double> scale) {
  check_attention(q, k, v);
  if (is_causal && mask) fail(kOp, "is_causal and an explicit mask are exclusive");
  const double s = scale.value_or(1.0 / std::sqrt(static_cast<double>(dim_size(q, q.rank() - 1))));
  if (fused_takes(q, k, v, mask, dropout_p)) {
    Handles inputs{q, k, v};
    // The composite adds a Float mask in the scores' dtype.
    if (mask) inputs.push_back(is_bool_mask(*mask) ? *mask : cast(*mask, q.dtype()));
    const ir::Attention op{s, is_causal};
    if (backend_fuses(op, inputs)) return tensor::run(op, inputs).front();
  }
  return composite(q, k, v, mask, is_causal, dropout_p, s);
}

}  // namespace ember::ops
