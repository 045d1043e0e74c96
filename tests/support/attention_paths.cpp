#include "support/attention_paths.h"

#include <cmath>
#include <cstddef>
#include <optional>
#include <utility>

#include "ember/autodiff.h"
#include "ember/functional.h"

namespace ember::test {
namespace {

/// Attends where (flat index % 3) != 1: every row keeps a key when S >= 3.
TensorData bool_mask(const Shape& shape) {
  std::vector<double> keep(static_cast<std::size_t>(shape.num_elements()));
  for (std::size_t i = 0; i < keep.size(); ++i)
    keep[i] = i % 3 == 1 ? 0.0 : 1.0;
  return TensorData(keep, shape, DType::Bool);
}

}  // namespace

Shape with_tail(const Shape& batch, std::vector<int64_t> tail) {
  std::vector<int64_t> dims = batch.dims();
  dims.insert(dims.end(), tail.begin(), tail.end());
  return Shape(std::move(dims));
}

TensorData wavy_values(const Shape& shape, double seed) {
  std::vector<double> values(static_cast<std::size_t>(shape.num_elements()));
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = std::sin(seed + 1.7 * static_cast<double>(i));
  return TensorData(values, shape);
}

std::vector<TensorData> attend(const AttentionCase& c, const Device& device, DType dtype,
                               DType compute, tensor::FusedPath path) {
  const tensor::FusedPathScope scope(path);
  const TensorCreationOptions on = TensorCreationOptions(device.autodiff()).with_dtype(compute);
  const auto upload = [&](const Shape& shape, double seed) {
    const TensorData values = wavy_values(shape, seed).convert(dtype).convert(compute);
    return ops::from_data(values, on, TensorKind::Float);
  };
  const TensorHandle q = ops::require_grad(upload(with_tail(c.batch, {c.l, c.e}), 0.1));
  const TensorHandle k = ops::require_grad(upload(with_tail(c.batch, {c.s, c.e}), 0.7));
  const TensorHandle v = ops::require_grad(upload(with_tail(c.batch, {c.s, c.ev}), 1.3));
  ops::OptionalHandle mask;
  if (c.mask == MaskKind::Float) mask = upload(c.mask_shape, 2.9);
  if (c.mask == MaskKind::Bool) {
    mask = ops::from_data(bool_mask(c.mask_shape), device, TensorKind::Bool);
  }
  const TensorHandle out =
      ops::scaled_dot_product_attention(q, k, v, mask, c.causal, 0.0, std::nullopt);
  const Gradients grads = ops::backward(ops::sum(ops::mul(out, upload(out.shape(), 3.7))));
  std::vector<TensorData> results;
  for (const TensorHandle& x : {out, *grads.get(q), *grads.get(k), *grads.get(v)})
    results.push_back(ops::into_data(x).convert(DType::F64));
  return results;
}

}  // namespace ember::test
