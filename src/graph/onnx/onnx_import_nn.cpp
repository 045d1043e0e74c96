// Importers of ONNX's matrix products and normalizations: MatMul, Gemm, BatchNormalization,
// LayerNormalization, InstanceNormalization, Dropout (inference).
#include "ember/functional.h"
#include "graph/onnx/onnx_import_util.h"

namespace ember::detail {
namespace {

/// MatMul as NumPy's matmul: a rank-1 operand gains a dim for the product and loses it after;
/// batch dims broadcast.
std::vector<OnnxValue> matmul(const OnnxNode& node) {
  TensorHandle a = node.tensor(0);
  TensorHandle b = node.tensor(1);
  const bool vector_a = onnx_rank(node.input(0)) == 1;
  const bool vector_b = onnx_rank(node.input(1)) == 1;
  if (onnx_rank(node.input(0)) == 0 || onnx_rank(node.input(1)) == 0) node.fail("a scalar operand");
  if (vector_a) a = ops::unsqueeze_dim(a, 0);
  if (vector_b) b = ops::unsqueeze_dim(b, 1);
  const std::size_t rank = std::max(a.rank(), b.rank());
  TensorHandle product = ops::matmul(ops::unsqueeze(a, rank), ops::unsqueeze(b, rank));
  std::vector<int64_t> dims = product.shape().dims();
  if (vector_b) dims.erase(dims.end() - 1);
  if (vector_a) dims.erase(dims.end() - (vector_b ? 1 : 2));
  return {reshaped(product, dims)};
}

/// alpha * A' B' + beta * C, A' and B' transposed when transA / transB say.
std::vector<OnnxValue> gemm(const OnnxNode& node) {
  TensorHandle a = node.tensor(0);
  TensorHandle b = node.tensor(1);
  if (a.rank() != 2 || b.rank() != 2 || node.input(0).scalar || node.input(1).scalar)
    node.fail("A and B must have rank 2, got ", a.shape(), " and ", b.shape());
  if (node.attr_int("transA", 0) != 0) a = ops::transpose(a);
  if (node.attr_int("transB", 0) != 0) b = ops::transpose(b);
  TensorHandle y = ops::matmul(a, b);
  const double alpha = node.attr_float("alpha", 1.0F);
  if (alpha != 1.0) y = ops::mul_scalar(y, alpha);
  if (node.has(2)) {
    const double beta = node.attr_float("beta", 1.0F);
    TensorHandle c = node.tensor(2);
    if (beta != 1.0) c = ops::mul_scalar(c, beta);
    y = ops::add(y, c);
  }
  return one(y);
}

/// param [C] shaped [C, 1, ...] (rank - 1 dims), to broadcast along dim 1 of a rank-`rank` tensor.
TensorHandle per_channel(const TensorHandle& param, std::size_t rank) {
  std::vector<int64_t> dims(rank - 1, 1);
  dims[0] = param.shape().num_elements();
  return ops::reshape(param, dims);
}

/// x's mean and biased variance over every dim but 1, kept as size-1 dims.
std::pair<TensorHandle, TensorHandle> channel_statistics(const TensorHandle& x) {
  TensorHandle mean = x;
  for (std::size_t d = 0; d < x.rank(); ++d) {
    if (d != 1) mean = ops::mean_dim(mean, static_cast<int64_t>(d));
  }
  const TensorHandle centered = ops::sub(x, mean);
  TensorHandle var = ops::mul(centered, centered);
  for (std::size_t d = 0; d < x.rank(); ++d) {
    if (d != 1) var = ops::mean_dim(var, static_cast<int64_t>(d));
  }
  return {mean, var};
}

/// BatchNormalization: with the running statistics, or in training mode with the batch's (and
/// the running ones updated: momentum * running + (1 - momentum) * batch, biased variance).
std::vector<OnnxValue> batch_norm(const OnnxNode& node) {
  const TensorHandle& x = node.tensor(0);
  if (x.rank() < 2 || node.input(0).scalar) node.fail("X must have rank 2 or more");
  const double eps = node.attr_float("epsilon", 1e-5F);
  const double momentum = node.attr_float("momentum", 0.9F);
  const bool training = node.attr_int("training_mode", 0) != 0;
  TensorHandle mean = per_channel(node.tensor(3), x.rank());
  TensorHandle var = per_channel(node.tensor(4), x.rank());
  std::vector<OnnxValue> outputs;
  if (training) std::tie(mean, var) = channel_statistics(x);
  const TensorHandle scale = per_channel(node.tensor(1), x.rank());
  const TensorHandle bias = per_channel(node.tensor(2), x.rank());
  const TensorHandle inv = ops::recip(ops::sqrt(ops::add_scalar(var, eps)));
  outputs.push_back({ops::add(ops::mul(ops::mul(ops::sub(x, mean), inv), scale), bias), false});
  if (!training) return outputs;
  const int64_t channels = node.tensor(3).shape().num_elements();
  for (const auto& [running, batch] : {std::pair{node.tensor(3), mean}, {node.tensor(4), var}}) {
    const TensorHandle flat = ops::reshape(batch, {channels});
    outputs.push_back(
        {ops::add(ops::mul_scalar(running, momentum), ops::mul_scalar(flat, 1.0 - momentum)),
         false});
  }
  return outputs;
}

/// LayerNormalization over the dims from axis on: Y, and the Mean and InvStdDev outputs.
std::vector<OnnxValue> layer_norm(const OnnxNode& node) {
  const TensorHandle& x = node.tensor(0);
  const int64_t rank = onnx_rank(node.input(0));
  const int64_t axis = onnx_axis(node, node.attr_int("axis", -1), rank);
  const double eps = node.attr_float("epsilon", 1e-5F);
  TensorHandle mean = x;
  for (int64_t d = axis; d < rank; ++d)
    mean = ops::mean_dim(mean, d);
  const TensorHandle centered = ops::sub(x, mean);
  TensorHandle var = ops::mul(centered, centered);
  for (int64_t d = axis; d < rank; ++d)
    var = ops::mean_dim(var, d);
  const TensorHandle inv = ops::recip(ops::sqrt(ops::add_scalar(var, eps)));
  TensorHandle y = ops::mul(ops::mul(centered, inv), node.tensor(1));
  if (node.has(2)) y = ops::add(y, node.tensor(2));
  return {{y, false}, {mean, false}, {inv, false}};
}

/// InstanceNormalization: each (sample, channel) normalized over its spatial dims.
std::vector<OnnxValue> instance_norm(const OnnxNode& node) {
  const TensorHandle& x = node.tensor(0);
  if (x.rank() < 3) node.fail("input must have rank 3 or more, got ", x.shape());
  const double eps = node.attr_float("epsilon", 1e-5F);
  TensorHandle mean = x;
  for (std::size_t d = 2; d < x.rank(); ++d)
    mean = ops::mean_dim(mean, static_cast<int64_t>(d));
  const TensorHandle centered = ops::sub(x, mean);
  TensorHandle var = ops::mul(centered, centered);
  for (std::size_t d = 2; d < x.rank(); ++d)
    var = ops::mean_dim(var, static_cast<int64_t>(d));
  const TensorHandle inv = ops::recip(ops::sqrt(ops::add_scalar(var, eps)));
  const TensorHandle scale = per_channel(node.tensor(1), x.rank());
  const TensorHandle bias = per_channel(node.tensor(2), x.rank());
  return one(ops::add(ops::mul(ops::mul(centered, inv), scale), bias));
}

/// Dropout at inference (or with ratio 0): the input, and a mask of ones. Training mode with a
/// ratio draws random masks: refused.
std::vector<OnnxValue> dropout(const OnnxNode& node) {
  const bool training =
      node.has(2) && node.known(2, "training_mode").to_vector<int64_t>().at(0) != 0;
  const double ratio = node.has(1) ? node.known(1, "ratio").to_vector<double>().at(0) : 0.5;
  if (training && ratio != 0.0)
    node.fail("training_mode is on with ratio ", ratio, ": ember imports Dropout for inference");
  const OnnxValue& x = node.input(0);
  const TensorHandle mask = ops::full_like(ops::cast(x.tensor, DType::Bool), true);
  return {x, {mask, x.scalar}};
}

}  // namespace

void add_nn_importers(OnnxImporters& table) {
  table.insert({
      {"MatMul", matmul},
      {"Gemm", gemm},
      {"BatchNormalization", batch_norm},
      {"LayerNormalization", layer_norm},
      {"InstanceNormalization", instance_norm},
      {"Dropout", dropout},
  });
  add_conv_importers(table);
}

}  // namespace ember::detail
