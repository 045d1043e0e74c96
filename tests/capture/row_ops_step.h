// A small computation through every fused row op, forward and backward, for the capture tests:
// layer_norm and rms_norm of x [6, 8] (weight and bias [8]) feed cross_entropy with class
// weights and label smoothing; softmax along dim 0 (across rows) and log_softmax along dim 1
// add their weighted sums. On a device that runs the fused row ops (cpu), a capture graph of it
// holds each as its fused op; on ndarray each runs as its composite.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ember/ember.h"

namespace ember::test {

/// n values in [-1.5, 1.5), spread by a fixed step (no data needed).
inline TensorData spread_values(const Shape& shape, int64_t salt) {
  std::vector<float> values(static_cast<std::size_t>(shape.num_elements()));
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<float>((static_cast<int64_t>(i) * 37 + salt * 11) % 23) / 7.5f - 1.5f;
  return TensorData(values, shape);
}

inline const TensorData kRowsX = spread_values(Shape{6, 8}, 0);
inline const TensorData kRowsWeight = spread_values(Shape{8}, 1);
inline const TensorData kRowsBias = spread_values(Shape{8}, 2);
inline const TensorData kRowsTargets(std::vector<int64_t>{3, 0, 7, 1, 5, 3}, Shape{6});
inline const TensorData kClassWeights(std::vector<float>{1.0f, 0.5f, 2.0f, 1.5f, 0.25f, 1.0f, 3.0f,
                                                         0.75f},
                                      Shape{8});

/// The leaves of the computation: x, weight and bias (tracked), targets.
struct RowLeaves {
  TensorHandle x;
  TensorHandle weight;
  TensorHandle bias;
  TensorHandle targets;
};

/// The outputs: layer_norm's y, the total loss, and its gradients of x, weight and bias.
inline std::vector<TensorHandle> row_ops_step(const RowLeaves& in) {
  const Device& device = in.x.device();
  const TensorHandle y = ops::layer_norm(in.x, {8}, in.weight, in.bias, 1e-5);
  const TensorHandle logits = ops::add(y, ops::rms_norm(in.x, {8}, in.weight, std::nullopt));
  const TensorHandle class_weights = ops::from_data(kClassWeights, device, TensorKind::Float);
  const TensorHandle loss =
      ops::cross_entropy(logits, in.targets, class_weights, module::Reduction::Mean, 0.1);
  const TensorHandle across_rows =
      ops::sum(ops::mul(ops::softmax(in.x, 0),
                        ops::from_data(spread_values(Shape{6, 8}, 3), device, TensorKind::Float)));
  const TensorHandle along_rows =
      ops::sum(ops::mul(ops::log_softmax(in.x, 1),
                        ops::from_data(spread_values(Shape{6, 8}, 4), device, TensorKind::Float)));
  const TensorHandle total = ops::add(ops::add(ops::reshape(loss, {1}), across_rows), along_rows);
  const Gradients grads = ops::backward(total);
  return {y, total, *grads.get(in.x), *grads.get(in.weight), *grads.get(in.bias)};
}

/// The leaves of kRows* on device (autodiff on), the float ones requiring grad.
inline RowLeaves row_leaves(const Device& device) {
  const Device tracked = device.autodiff();
  const auto leaf = [&](const TensorData& data) {
    return ops::require_grad(ops::from_data(data, tracked, TensorKind::Float));
  };
  return {leaf(kRowsX), leaf(kRowsWeight), leaf(kRowsBias),
          ops::from_data(kRowsTargets, device, TensorKind::Int)};
}

/// The fused row ops' other variants, of x [6, 8] (tracked) alone: layer_norm without weight or
/// bias and with a weight only, rms_norm without weight, cross_entropy without class weights (with
/// label smoothing) and with them (without), log_softmax across rows. Returns the total and its
/// gradient of x.
inline std::vector<TensorHandle> row_variants_step(const TensorHandle& x) {
  const Device& device = x.device();
  const auto constant = [&](const TensorData& data, TensorKind kind) {
    return ops::from_data(data, device, kind);
  };
  const TensorHandle weight = constant(kRowsWeight, TensorKind::Float);
  const TensorHandle targets = constant(kRowsTargets, TensorKind::Int);
  const TensorHandle logits =
      ops::add(ops::add(ops::layer_norm(x, {8}, std::nullopt, std::nullopt, 1e-5),
                        ops::layer_norm(x, {8}, weight, std::nullopt, 1e-3)),
               ops::rms_norm(x, {8}, std::nullopt, 1e-6));
  const TensorHandle smoothed =
      ops::cross_entropy(logits, targets, std::nullopt, module::Reduction::Sum, 0.2);
  const TensorHandle weighted = ops::cross_entropy(
      logits, targets, constant(kClassWeights, TensorKind::Float), module::Reduction::Mean, 0.0);
  const TensorHandle across_rows = ops::sum(
      ops::mul(ops::log_softmax(x, 0), constant(spread_values(Shape{6, 8}, 5), TensorKind::Float)));
  const TensorHandle total =
      ops::add(ops::add(ops::reshape(smoothed, {1}), ops::reshape(weighted, {1})), across_rows);
  return {total, *ops::backward(total).get(x)};
}

}  // namespace ember::test
