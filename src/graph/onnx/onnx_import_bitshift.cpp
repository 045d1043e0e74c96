// The importer of ONNX's BitShift, with ember's integer arithmetic (ember has no shift op):
// x << b as x * 2^b in the unsigned type of x's width (which wraps as a shift does), x >> b as
// floor(x / 2^b) in i64 (exact: x minus its remainder is a multiple of 2^b). Shifts outside
// [0, width) give 0 (-1 for a negative x shifted right), as ONNX's reference.
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

}  // namespace

void add_bitshift_importers(OnnxImporters& table) {
  table.insert({{"BitShift", bit_shift}});
}

}  // namespace ember::detail
