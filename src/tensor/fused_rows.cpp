// layer_norm, rms_norm and cross_entropy as their fused row ops where the device's backend runs
// them (fused_rows.h).
#include "tensor/fused_rows.h"

#include <string_view>
#include <utility>
#include <vector>

#include "ember/tensor_ops.h"
#include "ir/ops.h"
#include "tensor/check.h"
#include "tensor/dispatch.h"
#include "tensor/fused_path.h"
#include "tensor/tensor_impl.h"

namespace ember::tensor {
namespace {

/// Whether the backend of rows' device runs op fused on rows and the other inputs, described by
/// their metadata before they are made (or a scope forces the path).
bool backend_fuses(const ir::Op& op, const TensorHandle& rows, std::vector<ir::TensorMeta> others,
                   std::string_view name) {
  others.insert(others.begin(), impl_of(rows, name).meta);
  return runs_fused_rows(op, rows, others, name);
}

/// A parameter of one row's size: [n] of dtype.
ir::TensorMeta row_meta(int64_t n, DType dtype) {
  return {Shape{n}, dtype};
}

/// p as one row's worth of values [n] in dtype.
TensorHandle as_row(const TensorHandle& p, DType dtype) {
  return ops::cast(ops::reshape(p, {-1}), dtype);
}

}  // namespace

std::optional<TensorHandle> fused_layer_norm(const TensorHandle& rows,
                                             const ops::OptionalHandle& weight,
                                             const ops::OptionalHandle& bias, double eps,
                                             bool rms) {
  const ir::LayerNorm op{eps, rms, weight.has_value(), bias.has_value()};
  const std::string_view name = rms ? "rms_norm" : "layer_norm";
  const ir::TensorMeta parameter = row_meta(rows.shape().dims().back(), rows.dtype());
  std::vector<ir::TensorMeta> parameters;
  if (weight) parameters.push_back(parameter);
  if (bias) parameters.push_back(parameter);
  if (!backend_fuses(op, rows, std::move(parameters), name)) return std::nullopt;
  ops::Handles inputs{rows};
  if (weight) inputs.push_back(as_row(*weight, rows.dtype()));
  if (bias) inputs.push_back(as_row(*bias, rows.dtype()));
  return run(op, inputs).front();
}

std::optional<TensorHandle> fused_cross_entropy(const TensorHandle& rows,
                                                const TensorHandle& targets,
                                                const ops::OptionalHandle& weight,
                                                int64_t ignore_index, double label_smoothing) {
  constexpr std::string_view kName = "cross_entropy";
  if (weight && impl_of(*weight, kName).node != nullptr) return std::nullopt;
  const ir::CrossEntropy op{ignore_index, label_smoothing, weight.has_value()};
  std::vector<ir::TensorMeta> others{impl_of(targets, kName).meta};
  if (weight) others.push_back(row_meta(rows.shape()[1], rows.dtype()));
  if (!backend_fuses(op, rows, std::move(others), kName)) return std::nullopt;
  ops::Handles inputs{rows, targets};
  if (weight) inputs.push_back(ops::cast(*weight, rows.dtype()));
  return run(op, inputs).front();
}

}  // namespace ember::tensor
