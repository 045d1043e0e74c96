// The importer of ONNX's BitShift, with ember's integer arithmetic (ember has no shift op):
// x << b as x * 2^b in the unsigned type of x's width (which wraps as a shift does), x >> b as
// floor(x / 2^b) in i64 (exact: x minus its remainder is a multiple of 2^b). Shifts outside
// [0, width) give 0 (-1 for a negative x shifted right), as ONNX's reference. BitwiseAnd, Or,
// Xor and Not (ember has no bitwise op) likewise: in the unsigned type of the width, a and b as
// the sum of the products of their bits, a or b as a + b - (a and b), a xor b as
// a + b - 2 (a and b), not a as 0 - a - 1, all wrapping as the bits do.
#include "graph/onnx/onnx_import_util.h"

namespace ember::detail {
namespace {

DType unsigned_of(DType dtype) {
  switch (dtype_size(dtype)) {
    case 1:
      return DType::U8;
    case 2:
      return DType::U16;
    case 4:
      return DType::U32;
    default:
      return DType::U64;
  }
}

bool is_signed(DType dtype) {
  return dtype == DType::I8 || dtype == DType::I16 || dtype == DType::I32 || dtype == DType::I64;
}

/// 2^b as u64, for b in [0, 63].
TensorHandle power_of_two(const TensorHandle& b) {
  const TensorHandle two = ops::full_like(ops::cast(b, DType::F64), 2.0);
  return ops::cast(ops::powf(two, ops::cast(b, DType::F64)), DType::U64);
}

/// x >> shift for a signed x: floor(x / 2^shift) in i64, the sign alone for width - 1 (2^63
/// does not fit i64).
TensorHandle arithmetic_right(const TensorHandle& x, const TensorHandle& shift, int64_t width) {
  const TensorHandle wide = ops::cast(x, DType::I64);
  const TensorHandle divisor =
      ops::cast(power_of_two(ops::clamp_max(shift, width - 2)), DType::I64);
  const TensorHandle floored = ops::div(ops::sub(wide, ops::remainder(wide, divisor)), divisor);
  const TensorHandle sign = ops::mask_fill(ops::full_like(wide, 0), ops::lower_elem(wide, 0), -1);
  return ops::cast(ops::where(ops::equal_elem(shift, width - 1), sign, floored), x.dtype());
}

std::vector<OnnxValue> bit_shift(const OnnxNode& node) {
  const TensorHandle& x = node.tensor(0);
  const DType dtype = x.dtype();
  if (x.kind() != TensorKind::Int) node.fail("input is ", dtype, ", not an integer");
  const std::string direction = node.attr_string("direction", "");
  if (direction != "LEFT" && direction != "RIGHT")
    node.fail("direction '", direction, "' is neither LEFT nor RIGHT");
  const auto width = static_cast<int64_t>(8 * dtype_size(dtype));
  const TensorHandle b = ops::cast(node.tensor(1), DType::I64);
  const TensorHandle outside =
      ops::bool_or(ops::lower_elem(b, 0), ops::greater_equal_elem(b, width));
  const TensorHandle shift = ops::mask_fill(b, outside, 0);  // in [0, width)
  const DType wide = unsigned_of(dtype);
  TensorHandle result;
  if (direction == "LEFT") {
    const TensorHandle factor = ops::cast(power_of_two(shift), wide);
    result = ops::cast(ops::mul(ops::cast(x, wide), factor), dtype);
  } else if (is_signed(dtype)) {
    result = arithmetic_right(x, shift, width);
  } else {
    result = ops::div(x, ops::cast(power_of_two(shift), dtype));
  }
  // Outside the width: 0, or -1 for a negative x shifted right.
  result = ops::mask_fill(result, outside, 0);
  if (direction == "RIGHT" && is_signed(dtype))
    result = ops::mask_fill(result, ops::bool_and(outside, ops::lower_elem(x, 0)), -1);
  return one(result, all_scalar(node));
}

/// Input k as the unsigned type of its width (the same bits).
TensorHandle as_unsigned(const OnnxNode& node, std::size_t k) {
  const TensorHandle& x = node.tensor(k);
  if (x.kind() != TensorKind::Int) node.fail("input ", k, " is ", x.dtype(), ", not an integer");
  return ops::cast(x, unsigned_of(x.dtype()));
}

/// a and b (unsigned, one dtype): bit by bit from the lowest, each product of bits added in
/// from the highest by doubling (no power of two above 2 is needed).
TensorHandle bitwise_and(TensorHandle a, TensorHandle b) {
  const auto width = static_cast<int64_t>(8 * dtype_size(a.dtype()));
  std::vector<TensorHandle> bits;
  for (int64_t k = 0; k < width; ++k) {
    bits.push_back(ops::mul(ops::remainder_scalar(a, 2), ops::remainder_scalar(b, 2)));
    a = ops::div_scalar(a, 2);
    b = ops::div_scalar(b, 2);
  }
  TensorHandle sum = bits.back();
  for (auto bit = bits.rbegin() + 1; bit != bits.rend(); ++bit)
    sum = ops::add(ops::mul_scalar(sum, 2), *bit);
  return sum;
}

/// A binary bitwise op of the node's two inputs, given their and.
template <typename Combine>
std::vector<OnnxValue> bitwise(const OnnxNode& node, Combine combine) {
  const DType dtype = node.tensor(0).dtype();
  if (node.tensor(1).dtype() != dtype)
    node.fail("inputs of ", dtype, " and ", node.tensor(1).dtype());
  const TensorHandle a = as_unsigned(node, 0), b = as_unsigned(node, 1);
  const std::optional<Shape> shape = ir::rules::try_broadcast(a.shape(), b.shape());
  if (!shape) node.fail("inputs of shapes ", a.shape(), " and ", b.shape(), " do not broadcast");
  const TensorHandle wide_a = ops::expand(a, shape->dims()), wide_b = ops::expand(b, shape->dims());
  return one(ops::cast(combine(wide_a, wide_b, bitwise_and(wide_a, wide_b)), dtype),
             all_scalar(node));
}

std::vector<OnnxValue> bitwise_and_op(const OnnxNode& node) {
  return bitwise(node, [](const auto&, const auto&, const TensorHandle& both) { return both; });
}
std::vector<OnnxValue> bitwise_or_op(const OnnxNode& node) {
  return bitwise(node, [](const TensorHandle& a, const TensorHandle& b, const TensorHandle& both) {
    return ops::sub(ops::add(a, b), both);
  });
}
std::vector<OnnxValue> bitwise_xor_op(const OnnxNode& node) {
  return bitwise(node, [](const TensorHandle& a, const TensorHandle& b, const TensorHandle& both) {
    return ops::sub(ops::add(a, b), ops::mul_scalar(both, 2));
  });
}
std::vector<OnnxValue> bitwise_not_op(const OnnxNode& node) {
  const TensorHandle a = as_unsigned(node, 0);
  return one(
      ops::cast(ops::sub_scalar(ops::sub(ops::full_like(a, 0), a), 1), node.tensor(0).dtype()),
      node.input(0).scalar);
}

}  // namespace

void add_bitshift_importers(OnnxImporters& table) {
  table.insert({
      {"BitShift", bit_shift},
      {"BitwiseAnd", bitwise_and_op},
      {"BitwiseOr", bitwise_or_op},
      {"BitwiseXor", bitwise_xor_op},
      {"BitwiseNot", bitwise_not_op},
  });
}

}  // namespace ember::detail
