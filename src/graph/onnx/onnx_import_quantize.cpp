// Importers of ONNX's QuantizeLinear and DequantizeLinear for the integer types ember has (8 and
// 16 bits): a scale and zero point per tensor, per channel along axis, or per block of
// block_size entries along axis.
#include <algorithm>
#include <limits>

#include "graph/onnx/onnx_import_util.h"
#include "graph/onnx/onnx_model.h"

namespace ember::detail {
namespace {

/// param (a scale or zero point) shaped to broadcast with x: as it is when it holds one value,
/// along axis when it is 1-D, each entry repeated over its block with a block_size.
TensorHandle along_axis(const OnnxNode& node, const TensorHandle& param, const TensorHandle& x,
                        bool param_scalar) {
  if (param_scalar || param.shape().num_elements() == 1) return ops::reshape(param, {1});
  const auto rank = static_cast<int64_t>(x.rank());
  const int64_t axis = onnx_axis(node, node.attr_int("axis", 1), rank);
  const int64_t size = x.shape().dims()[static_cast<std::size_t>(axis)];
  // A block longer than the axis covers it, as one of its length does (and keeps the sizes
  // below from overflowing).
  const int64_t block = std::min(node.attr_int("block_size", 0), std::max<int64_t>(size, 1));
  if (block <= 0) {
    if (param.rank() != 1 || param.shape().dims()[0] != size)
      node.fail("a scale or zero point of ", param.shape(), " for axis ", axis, " of size ", size);
    return ops::reshape(param, positions_shape(rank, axis, size));
  }
  if (param.rank() != x.rank()) node.fail("blocked scales must have the input's rank");
  std::vector<int64_t> dims = param.shape().dims();
  const int64_t blocks = dims[static_cast<std::size_t>(axis)];
  if (blocks * block < size || (blocks - 1) * block >= size)
    node.fail(blocks, " blocks of ", block, " do not cover axis ", axis, " of size ", size);
  std::vector<int64_t> wide = dims;
  wide.insert(wide.begin() + axis + 1, block);
  const TensorHandle repeated = ops::expand(ops::unsqueeze_dim(param, axis + 1), wide);
  dims[static_cast<std::size_t>(axis)] = blocks * block;
  return ops::narrow(ops::reshape(repeated, dims), axis, 0, size);
}

std::vector<OnnxValue> dequantize(const OnnxNode& node) {
  const TensorHandle& x = node.tensor(0);
  const TensorHandle& scale = node.tensor(1);
  TensorHandle value = ops::cast(x, DType::F32);
  if (node.has(2))
    value = ops::sub(
        value, ops::cast(along_axis(node, node.tensor(2), x, node.input(2).scalar), DType::F32));
  value = ops::mul(value, ops::cast(along_axis(node, scale, x, node.input(1).scalar), DType::F32));
  DType out = scale.dtype();
  if (auto given = node.attr_int("output_dtype"); given && *given != 0) {
    const std::optional<DType> d = dtype_of_onnx(static_cast<int32_t>(*given));
    if (!d) node.fail("output_dtype ", onnx_type_name(static_cast<int32_t>(*given)));
    out = *d;
  }
  return one(ops::cast(value, out), node.input(0).scalar);
}

/// The range of an integer dtype, as doubles.
std::pair<double, double> range_of(const OnnxNode& node, DType dtype) {
  switch (dtype) {
    case DType::I8:
      return {-128, 127};
    case DType::U8:
      return {0, 255};
    case DType::I16:
      return {-32768, 32767};
    case DType::U16:
      return {0, 65535};
    case DType::F64:
    case DType::F32:
    case DType::F16:
    case DType::BF16:
    case DType::I64:
    case DType::I32:
    case DType::U64:
    case DType::U32:
    case DType::Bool:
      break;
  }
  node.fail("quantizing to ", dtype, " is not imported (8- and 16-bit integers)");
}

/// round(x / scale) (half to even) + zero point, saturated to the output type's range.
std::vector<OnnxValue> quantize(const OnnxNode& node) {
  const TensorHandle& x = node.tensor(0);
  DType out = DType::U8;
  if (node.has(2)) {
    out = node.tensor(2).dtype();
  } else if (auto given = node.attr_int("output_dtype"); given && *given != 0) {
    const std::optional<DType> d = dtype_of_onnx(static_cast<int32_t>(*given));
    if (!d) node.fail("output_dtype ", onnx_type_name(static_cast<int32_t>(*given)));
    out = *d;
  }
  const auto [low, high] = range_of(node, out);
  const TensorHandle scale =
      ops::cast(along_axis(node, node.tensor(1), x, node.input(1).scalar), x.dtype());
  TensorHandle q = ops::cast(ops::round(ops::div(x, scale)), DType::F64);
  if (node.has(2))
    q = ops::add(q,
                 ops::cast(along_axis(node, node.tensor(2), x, node.input(2).scalar), DType::F64));
  return one(ops::cast(ops::clamp(q, low, high), out), node.input(0).scalar);
}

/// x (a quantized tensor) minus its zero point (one value), as exact f64 integers.
TensorHandle centered(const OnnxNode& node, std::size_t x, std::size_t zero_point) {
  const TensorHandle value = ops::cast(node.tensor(x), DType::F64);
  if (!node.has(zero_point)) return value;
  if (node.tensor(zero_point).shape().num_elements() != 1)
    node.fail("input ", zero_point, ": only a zero point per tensor is imported");
  return ops::sub(value, ops::reshape(ops::cast(node.tensor(zero_point), DType::F64), {1}));
}

/// One value of input k (a scale) as a [1] tensor.
TensorHandle per_tensor(const OnnxNode& node, std::size_t k) {
  if (node.tensor(k).shape().num_elements() != 1)
    node.fail("input ", k, ": only a scale per tensor is imported");
  return ops::reshape(node.tensor(k), {1});
}

/// QLinearMatMul as ONNX's reference computes it: the integer product of the operands less
/// their zero points (exact in f64), times a_scale b_scale / y_scale (in the scales' dtype),
/// plus y's zero point, rounded half to even and saturated to y's type.
std::vector<OnnxValue> qlinear_matmul(const OnnxNode& node) {
  TensorHandle a = centered(node, 0, 2), b = centered(node, 3, 5);
  if (a.rank() < 2 || b.rank() < 2) node.fail("operands of rank < 2 are not imported");
  const std::size_t rank = std::max(a.rank(), b.rank());
  const TensorHandle product = ops::matmul(ops::unsqueeze(a, rank), ops::unsqueeze(b, rank));
  const TensorHandle factor =
      ops::div(ops::mul(per_tensor(node, 1), per_tensor(node, 4)), per_tensor(node, 6));
  TensorHandle y = ops::mul(product, ops::cast(factor, DType::F64));
  const DType out = node.has(7) ? node.tensor(7).dtype() : node.tensor(0).dtype();
  if (node.has(7)) y = ops::add(y, ops::reshape(ops::cast(node.tensor(7), DType::F64), {1}));
  const auto [low, high] = range_of(node, out);
  return one(ops::cast(ops::clamp(ops::round(y), low, high), out));
}

}  // namespace

void add_quantize_importers(OnnxImporters& table) {
  table.insert({
      {"QuantizeLinear", quantize},
      {"DequantizeLinear", dequantize},
      {"QLinearMatMul", qlinear_matmul},
  });
}

}  // namespace ember::detail
