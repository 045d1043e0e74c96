// Importers of ONNX's matrix products and normalizations: MatMul, Gemm, Det, BatchNormalization,
// LayerNormalization, InstanceNormalization.
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

/// x's mean over the dims from `from` on (kept with size 1), and x's centered values' mean
/// square there: what the normalizations divide by.
std::pair<TensorHandle, TensorHandle> trailing_statistics(const TensorHandle& x, int64_t from) {
  TensorHandle mean = x;
  for (auto d = static_cast<std::size_t>(from); d < x.rank(); ++d)
    mean = ops::mean_dim(mean, static_cast<int64_t>(d));
  const TensorHandle centered = ops::sub(x, mean);
  TensorHandle var = ops::mul(centered, centered);
  for (auto d = static_cast<std::size_t>(from); d < x.rank(); ++d)
    var = ops::mean_dim(var, static_cast<int64_t>(d));
  return {mean, var};
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
  const auto [mean, var] = trailing_statistics(x, axis);
  const TensorHandle centered = ops::sub(x, mean);
  const TensorHandle inv = ops::recip(ops::sqrt(ops::add_scalar(var, eps)));
  TensorHandle y = ops::mul(ops::mul(centered, inv), node.tensor(1));
  if (node.has(2)) y = ops::add(y, node.tensor(2));
  return {{y, false}, {mean, false}, {inv, false}};
}

/// RMSNormalization: x / sqrt(mean(x^2) + epsilon) * scale, over the dims from axis on.
std::vector<OnnxValue> rms_norm(const OnnxNode& node) {
  const TensorHandle& x = node.tensor(0);
  const int64_t axis = onnx_axis(node, node.attr_int("axis", -1), onnx_rank(node.input(0)));
  TensorHandle square = ops::mul(x, x);
  for (auto d = static_cast<std::size_t>(axis); d < x.rank(); ++d)
    square = ops::mean_dim(square, static_cast<int64_t>(d));
  const double eps = node.attr_float("epsilon", 1e-5F);
  const TensorHandle inv = ops::recip(ops::sqrt(ops::add_scalar(square, eps)));
  return one(ops::mul(ops::mul(x, inv), node.tensor(1)));
}

/// GroupNormalization: x [N, C, ...] normalized over each group of C / num_groups channels and
/// every position, then scale [C] * . + bias [C].
std::vector<OnnxValue> group_norm(const OnnxNode& node) {
  const TensorHandle& x = node.tensor(0);
  if (x.rank() < 3 || node.input(0).scalar) node.fail("input must have rank 3 or more");
  const std::optional<int64_t> groups = node.attr_int("num_groups");
  const int64_t channels = x.shape().dims()[1];
  if (!groups || *groups < 1 || channels % *groups != 0)
    node.fail("num_groups must divide the ", channels, " channels");
  const TensorHandle grouped = ops::reshape(x, {x.shape().dims()[0], *groups, -1});
  const auto [mean, var] = trailing_statistics(grouped, 2);
  const double eps = node.attr_float("epsilon", 1e-5F);
  const TensorHandle normalized = ops::reshape(
      ops::mul(ops::sub(grouped, mean), ops::recip(ops::sqrt(ops::add_scalar(var, eps)))),
      x.shape().dims());
  return one(ops::add(ops::mul(normalized, per_channel(node.tensor(1), x.rank())),
                      per_channel(node.tensor(2), x.rank())));
}

/// LpNormalization: x divided by its L1 or L2 norm along axis (0 where the norm is 0).
std::vector<OnnxValue> lp_norm(const OnnxNode& node) {
  const TensorHandle& x = node.tensor(0);
  const int64_t axis = onnx_axis(node, node.attr_int("axis", -1), onnx_rank(node.input(0)));
  const int64_t p = node.attr_int("p", 2);
  if (p != 1 && p != 2) node.fail("p ", p, " is neither 1 nor 2");
  const TensorHandle norm =
      p == 1 ? ops::sum_dim(ops::abs(x), axis) : ops::sqrt(ops::sum_dim(ops::mul(x, x), axis));
  const TensorHandle zero = ops::equal_elem(norm, 0.0);
  return one(ops::mask_fill(ops::div(x, ops::mask_fill(norm, zero, 1.0)), zero, 0.0),
             node.input(0).scalar);
}

/// MeanVarianceNormalization: (x - mean) / (std + 1e-9) over axes (default N, H, W).
std::vector<OnnxValue> mean_variance_norm(const OnnxNode& node) {
  const TensorHandle& x = node.tensor(0);
  const std::vector<int64_t> axes = node.attr_ints("axes").value_or(std::vector<int64_t>{0, 2, 3});
  TensorHandle mean = x;
  TensorHandle square = ops::mul(x, x);
  for (int64_t axis : axes) {
    const int64_t d = onnx_axis(node, axis, onnx_rank(node.input(0)));
    mean = ops::mean_dim(mean, d);
    square = ops::mean_dim(square, d);
  }
  const TensorHandle std = ops::sqrt(ops::sub(square, ops::mul(mean, mean)));
  return one(ops::div(ops::sub(x, mean), ops::add_scalar(std, 1e-9)));
}

/// LRN: x / (bias + alpha / size * the sum of squares over size neighbouring channels)^beta.
std::vector<OnnxValue> lrn(const OnnxNode& node) {
  const TensorHandle& x = node.tensor(0);
  if (x.rank() < 3 || node.input(0).scalar) node.fail("input must be [N, C, spatial...]");
  const int64_t size = node.attr_int("size", 0);
  if (size < 1 || size > (int64_t{1} << 16)) node.fail("size ", size);
  const TensorHandle squares = ops::mul(x, x);
  const TensorHandle padded = pad_axis(node, squares, 1, (size - 1) / 2, size / 2, 0.0);
  const int64_t channels = x.shape().dims()[1];
  TensorHandle sum = ops::narrow(padded, 1, 0, channels);
  for (int64_t i = 1; i < size; ++i)
    sum = ops::add(sum, ops::narrow(padded, 1, i, channels));
  const double alpha = node.attr_float("alpha", 1e-4F);
  const double beta = node.attr_float("beta", 0.75F);
  const double bias = node.attr_float("bias", 1.0F);
  const TensorHandle scale =
      ops::add_scalar(ops::mul_scalar(sum, alpha / static_cast<double>(size)), bias);
  return one(ops::div(x, ops::powf_scalar(scale, beta)));
}

/// InstanceNormalization: each (sample, channel) normalized over its spatial dims.
std::vector<OnnxValue> instance_norm(const OnnxNode& node) {
  const TensorHandle& x = node.tensor(0);
  if (x.rank() < 3) node.fail("input must have rank 3 or more, got ", x.shape());
  const double eps = node.attr_float("epsilon", 1e-5F);
  const auto [mean, var] = trailing_statistics(x, 2);
  const TensorHandle centered = ops::sub(x, mean);
  const TensorHandle inv = ops::recip(ops::sqrt(ops::add_scalar(var, eps)));
  const TensorHandle scale = per_channel(node.tensor(1), x.rank());
  const TensorHandle bias = per_channel(node.tensor(2), x.rank());
  return one(ops::add(ops::mul(ops::mul(centered, inv), scale), bias));
}

/// The largest matrix Det's elimination is written out for (n steps of a few ops each).
constexpr int64_t kMaxDetSize = 256;

/// Det of [..., n, n]: Gaussian elimination with partial pivoting written out over the n
/// columns, in f64: each column's largest entry (at or below the diagonal) swapped onto it (the
/// sign flipping per swap), multiplied into the determinant, and eliminated from the rows below.
std::vector<OnnxValue> det(const OnnxNode& node) {
  const TensorHandle& x = node.tensor(0);
  const std::vector<int64_t>& dims = x.shape().dims();
  const auto rank = static_cast<int64_t>(dims.size());
  if (rank < 2 || dims[dims.size() - 1] != dims[dims.size() - 2] || dims.back() > kMaxDetSize)
    node.fail("input ", x.shape(), " is not [..., n, n] with n <= ", kMaxDetSize);
  const int64_t n = dims.back();
  TensorHandle a = ops::cast(x, DType::F64);
  std::vector<int64_t> batch(dims.begin(), dims.end() - 2);
  batch.push_back(1);
  TensorHandle result =
      ops::full(Shape(batch), 1.0, TensorCreationOptions(node.device()).with_dtype(DType::F64),
                TensorKind::Float);
  const TensorHandle rows = positions(node, n, rank, rank - 2);  // [.., n, 1]
  for (int64_t k = 0; k < n; ++k) {
    const TensorHandle column = ops::narrow(a, rank - 1, k, 1);  // [..., n, 1]
    // The pivot row: the largest |entry| at or below row k.
    const TensorHandle below = ops::mask_fill(ops::abs(column), ops::lower_elem(rows, k), -1.0);
    const TensorHandle p = ops::cast(ops::argmax(below, rank - 2), DType::I64);  // [..., 1, 1]
    const TensorHandle is_k = ops::equal_elem(rows, k), is_p = ops::equal(rows, p);
    const TensorHandle source = ops::where(is_k, p, ops::where(is_p, ops::full_like(p, k), rows));
    std::vector<int64_t> full = dims;
    a = ops::gather(a, rank - 2, ops::expand(source, full));
    result =
        ops::mask_where(result, ops::not_equal_elem(ops::reshape(p, batch), k), ops::neg(result));
    const TensorHandle pivot_row = ops::narrow(a, rank - 2, k, 1);      // [..., 1, n]
    const TensorHandle pivot = ops::narrow(pivot_row, rank - 1, k, 1);  // [..., 1, 1]
    result = ops::mul(result, ops::reshape(pivot, batch));
    const TensorHandle safe = ops::mask_fill(pivot, ops::equal_elem(pivot, 0.0), 1.0);
    const TensorHandle factor = ops::mask_fill(ops::div(ops::narrow(a, rank - 1, k, 1), safe),
                                               ops::lower_equal_elem(rows, k), 0.0);
    a = ops::sub(a, ops::mul(factor, pivot_row));
  }
  batch.pop_back();
  const TensorHandle out = ops::cast(result, x.dtype());
  return {reshaped(out, batch)};
}

}  // namespace

void add_nn_importers(OnnxImporters& table) {
  table.insert({
      {"MatMul", matmul},
      {"Gemm", gemm},
      {"Det", det},
      {"BatchNormalization", batch_norm},
      {"LayerNormalization", layer_norm},
      {"InstanceNormalization", instance_norm},
      {"RMSNormalization", rms_norm},
      {"LRN", lrn},
      {"GroupNormalization", group_norm},
      {"LpNormalization", lp_norm},
      {"MeanVarianceNormalization", mean_variance_norm},
  });
  add_conv_importers(table);
}

}  // namespace ember::detail
