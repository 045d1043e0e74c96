// Importers of ONNX's reductions (Reduce*, ArgMax, ArgMin), Softmax and LogSoftmax, CumSum and
// TopK.
#include <algorithm>
#include <limits>
#include <numeric>

#include "ember/activation_functions.h"
#include "graph/onnx/onnx_import_util.h"

namespace ember::detail {
namespace {

using DimOp = TensorHandle (*)(const TensorHandle&, int64_t);

/// The axes a Reduce* node reduces (input 1 where given: ReduceSum from opset 13, the others
/// from 18; else the axes attribute; none given: all, or none with noop_with_empty_axes).
std::vector<int64_t> reduce_axes(const OnnxNode& node, int64_t rank) {
  std::vector<int64_t> axes;
  if (node.has(1)) {
    axes = node.known_ints(1, "axes");
  } else if (auto attribute = node.attr_ints("axes")) {
    axes = *attribute;
  }
  if (axes.empty()) {
    if (node.attr_int("noop_with_empty_axes", 0) != 0) return {};
    axes.resize(static_cast<std::size_t>(rank));
    std::iota(axes.begin(), axes.end(), 0);
  }
  for (int64_t& axis : axes)
    axis = onnx_axis(node, axis, rank);
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  return axes;
}

/// x reduced by f over the node's axes, each kept with size 1 unless keepdims is 0. An empty
/// axis gives empty (the reduction's identity: ONNX's -inf for ReduceMax, ...) where given.
OnnxValue reduce_with(const OnnxNode& node, const TensorHandle& x, DimOp f,
                      std::optional<double> empty = std::nullopt) {
  const OnnxValue& input = node.input(0);
  const std::vector<int64_t> axes = reduce_axes(node, onnx_rank(input));
  if (axes.empty()) return {x, input.scalar};
  TensorHandle result = x;
  std::vector<int64_t> kept = x.shape().dims();
  for (int64_t axis : axes)
    kept[static_cast<std::size_t>(axis)] = 1;
  if (empty && x.shape().num_elements() == 0) {
    const double value = x.kind() == TensorKind::Bool ? (*empty > 0) : *empty;
    result = ops::full(Shape(kept), value,
                       TensorCreationOptions(node.device()).with_dtype(x.dtype()), x.kind());
  } else {
    for (int64_t axis : axes)
      result = f(result, axis);
  }
  if (node.attr_int("keepdims", 1) != 0) return {result, input.scalar};
  std::vector<int64_t> dims;
  const std::vector<int64_t> in = onnx_dims(input);
  for (std::size_t d = 0; d < in.size(); ++d) {
    if (!std::binary_search(axes.begin(), axes.end(), static_cast<int64_t>(d)))
      dims.push_back(in[d]);
  }
  return reshaped(result, dims);
}

template <DimOp F>
std::vector<OnnxValue> reduce(const OnnxNode& node) {
  return {reduce_with(node, node.tensor(0), F)};
}

constexpr double kInfinity = std::numeric_limits<double>::infinity();

/// ReduceMax and ReduceMin, whose identity over an empty axis is -inf and inf (the lowest and
/// highest value of an Int dtype; false and true for Bool).
std::vector<OnnxValue> reduce_max(const OnnxNode& node) {
  const TensorHandle& x = node.tensor(0);
  return {reduce_with(node, x, ops::max_dim, x.kind() == TensorKind::Float ? -kInfinity : 0.0)};
}

std::vector<OnnxValue> reduce_min(const OnnxNode& node) {
  const TensorHandle& x = node.tensor(0);
  return {reduce_with(node, x, ops::min_dim, x.kind() == TensorKind::Float ? kInfinity : 1.0)};
}

std::vector<OnnxValue> reduce_l1(const OnnxNode& node) {
  return {reduce_with(node, ops::abs(node.tensor(0)), ops::sum_dim)};
}

std::vector<OnnxValue> reduce_sum_square(const OnnxNode& node) {
  const TensorHandle& x = node.tensor(0);
  return {reduce_with(node, ops::mul(x, x), ops::sum_dim)};
}

std::vector<OnnxValue> reduce_l2(const OnnxNode& node) {
  OnnxValue sum = reduce_sum_square(node)[0];
  return one(ops::sqrt(sum.tensor), sum.scalar);
}

std::vector<OnnxValue> reduce_log_sum(const OnnxNode& node) {
  OnnxValue sum = reduce<ops::sum_dim>(node)[0];
  return one(ops::log(sum.tensor), sum.scalar);
}

/// log(sum(exp(x))) computed as max + log(sum(exp(x - max))), the max kept over the same axes.
std::vector<OnnxValue> reduce_log_sum_exp(const OnnxNode& node) {
  const TensorHandle& x = node.tensor(0);
  if (x.shape().num_elements() == 0) return {reduce_with(node, x, ops::max_dim, -kInfinity)};
  TensorHandle max = x;
  for (int64_t axis : reduce_axes(node, onnx_rank(node.input(0))))
    max = ops::max_dim(max, axis);
  const OnnxValue sum = reduce_with(node, ops::exp(ops::sub(x, max)), ops::sum_dim);
  const OnnxValue top = reduce_with(node, max, ops::max_dim);  // the max, shaped as the sum
  return one(ops::add(ops::log(sum.tensor), top.tensor), sum.scalar);
}

/// ArgMax / ArgMin: the first extreme index, or the last with select_last_index.
template <DimOp F>
std::vector<OnnxValue> arg_extreme(const OnnxNode& node) {
  const OnnxValue& input = node.input(0);
  const int64_t rank = onnx_rank(input);
  const int64_t axis = onnx_axis(node, node.attr_int("axis", 0), rank);
  const bool last = node.attr_int("select_last_index", 0) != 0;
  const TensorHandle& x = node.tensor(0);
  TensorHandle index = F(last ? ops::flip(x, {axis}) : x, axis);
  if (last) index = ops::rsub_scalar(index, x.shape().dims()[static_cast<std::size_t>(axis)] - 1);
  std::vector<int64_t> dims = onnx_dims(input);
  if (node.attr_int("keepdims", 1) != 0) {
    dims[static_cast<std::size_t>(axis)] = 1;
  } else {
    dims.erase(dims.begin() + axis);
  }
  return {reshaped(index, dims)};
}

/// Softmax in f16 or bf16 as ONNX's reference computes it in NumPy: x - max, exp and the
/// quotient each rounded to the dtype, and the sum rounded as reference_sum says. Wider dtypes
/// take ember's softmax, whose f32 or f64 noise is within the tolerances.
TensorHandle softmax(const TensorHandle& x, int64_t axis) {
  if (x.dtype() != DType::BF16 && x.dtype() != DType::F16) return ops::softmax(x, axis);
  const TensorHandle exps = ops::exp(ops::sub(x, ops::max_dim(x, axis)));
  return ops::div(exps, reference_sum(exps, axis));
}

template <DimOp F>
std::vector<OnnxValue> softmax_like(const OnnxNode& node) {
  const int64_t axis = onnx_axis(node, node.attr_int("axis", -1), onnx_rank(node.input(0)));
  return one(F(node.tensor(0), axis));
}

/// CumSum and CumProd: exclusive shifts the results by one along axis (the first being the
/// op's identity), reverse runs from the end.
template <DimOp F>
std::vector<OnnxValue> cumulative(const OnnxNode& node) {
  const int64_t rank = onnx_rank(node.input(0));
  const std::vector<int64_t> given = node.known_ints(1, "axis");
  if (given.size() != 1) node.fail("axis holds ", given.size(), " values, not 1");
  const int64_t axis = onnx_axis(node, given[0], rank);
  const bool reverse = node.attr_int("reverse", 0) != 0;
  const TensorHandle x = reverse ? ops::flip(node.tensor(0), {axis}) : node.tensor(0);
  TensorHandle result = F(x, axis);
  const int64_t size = x.shape().dims()[static_cast<std::size_t>(axis)];
  if (node.attr_int("exclusive", 0) != 0 && size > 0) {
    std::vector<int64_t> dims = x.shape().dims();
    dims[static_cast<std::size_t>(axis)] = 1;
    const Scalar identity = F == ops::cumprod ? 1 : 0;
    const TensorHandle first =
        ops::full(Shape(dims), identity, TensorCreationOptions(node.device()).with_dtype(x.dtype()),
                  x.kind());
    result = ops::cat({first, ops::narrow(result, axis, 0, size - 1)}, axis);
  }
  return one(reverse ? ops::flip(result, {axis}) : result);
}

/// TopK: the k largest (or smallest) along axis, and their indices; sorted either way.
std::vector<OnnxValue> topk(const OnnxNode& node) {
  const int64_t axis = onnx_axis(node, node.attr_int("axis", -1), onnx_rank(node.input(0)));
  const std::vector<int64_t> k = node.known_ints(1, "K");
  if (k.size() != 1) node.fail("K holds ", k.size(), " values, not 1");
  const bool largest = node.attr_int("largest", 1) != 0;
  const TensorHandle& x = node.tensor(0);
  auto [values, indices] = ops::topk_with_indices(largest ? x : ops::neg(x), k[0], axis);
  return {{largest ? values : ops::neg(values), false}, {indices, false}};
}

}  // namespace

/// The longest bf16 axis reference_sum adds one element at a time.
constexpr int64_t kMaxChainedSum = int64_t{1} << 12;

TensorHandle reference_sum(const TensorHandle& x, int64_t axis) {
  const int64_t size = x.shape().dims()[static_cast<std::size_t>(axis)];
  if (x.dtype() != DType::BF16 || size < 2 || size > kMaxChainedSum) return ops::sum_dim(x, axis);
  TensorHandle sum = ops::narrow(x, axis, 0, 1);
  for (int64_t i = 1; i < size; ++i)
    sum = ops::add(sum, ops::narrow(x, axis, i, 1));
  return sum;
}

void add_reduce_importers(OnnxImporters& table) {
  table.insert({
      {"ReduceSum", reduce<ops::sum_dim>},
      {"ReduceMean", reduce<ops::mean_dim>},
      {"ReduceMax", reduce_max},
      {"ReduceMin", reduce_min},
      {"ReduceProd", reduce<ops::prod_dim>},
      {"ReduceL1", reduce_l1},
      {"ReduceL2", reduce_l2},
      {"ReduceSumSquare", reduce_sum_square},
      {"ReduceLogSum", reduce_log_sum},
      {"ReduceLogSumExp", reduce_log_sum_exp},
      {"ArgMax", arg_extreme<ops::argmax>},
      {"ArgMin", arg_extreme<ops::argmin>},
      {"Softmax", softmax_like<softmax>},
      {"LogSoftmax", softmax_like<ops::log_softmax>},
      {"CumSum", cumulative<ops::cumsum>},
      {"CumProd", cumulative<ops::cumprod>},
      {"TopK", topk},
  });
}

}  // namespace ember::detail
