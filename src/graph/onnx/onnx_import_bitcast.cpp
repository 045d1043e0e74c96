// Importer of ONNX's BitCast (the same bytes read as another type of the same width), with
// ember's arithmetic (ember has no reinterpreting op): between integers (and bool) a cast, which
// wraps as the bits do; between a float and an integer the IEEE fields computed exactly, in f64
// and u64 arithmetic: sign, exponent (floor(log2 |x|), corrected against exact powers of two)
// and mantissa (|x| / 2^e scaled to an integer), or back, the value (2^M + m) 2^(e - bias - M).
// NaN reads as the canonical quiet NaN.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <utility>

#include "graph/onnx/onnx_import_util.h"
#include "graph/onnx/onnx_model.h"

namespace ember::detail {
namespace {

/// An IEEE binary format: mantissa and exponent bits, and the exponent's bias.
struct Format {
  int64_t mantissa, exponent, bias;
};

/// The float dtypes' formats; integers and bool have none.
constexpr std::array<std::pair<DType, Format>, 4> kFormats = {{
    {DType::F64, {52, 11, 1023}},
    {DType::F32, {23, 8, 127}},
    {DType::F16, {10, 5, 15}},
    {DType::BF16, {7, 8, 127}},
}};

std::optional<Format> format_of(DType dtype) {
  const auto found = std::ranges::find(kFormats, dtype, &std::pair<DType, Format>::first);
  if (found == kFormats.end()) return std::nullopt;
  return found->second;
}

/// The powers of two 2^k, k in [kLowest, kHighest] (every exponent of f64, denormals included).
constexpr int64_t kLowest = -1074, kHighest = 1023;

/// 2^k for each k (integral f64 values in range), exactly: a lookup in a table of them.
TensorHandle power_of_two(const OnnxNode& node, const TensorHandle& k) {
  std::vector<double> table;
  for (int64_t e = kLowest; e <= kHighest; ++e)
    table.push_back(std::ldexp(1.0, static_cast<int>(e)));
  const TensorHandle powers =
      constant(node, TensorData(std::move(table), Shape{kHighest - kLowest + 1}));
  const TensorHandle index =
      ops::cast(ops::sub_scalar(ops::clamp(k, kLowest, kHighest), kLowest), DType::I64);
  return ops::reshape(ops::select(powers, 0, ops::reshape(index, {-1})), k.shape().dims());
}

/// x (u64) times 2^shift, shift < 64, in steps a Scalar holds.
TensorHandle shifted(TensorHandle x, int64_t shift) {
  for (; shift > 31; shift -= 31)
    x = ops::mul_scalar(x, int64_t{1} << 31);
  return ops::mul_scalar(x, int64_t{1} << shift);
}

/// The bits (u64) of float x in format f.
TensorHandle float_bits(const OnnxNode& node, const TensorHandle& x, const Format& f) {
  const TensorHandle v = ops::cast(x, DType::F64);
  const TensorHandle a = ops::abs(v);
  const TensorHandle nan = ops::is_nan(v), inf = ops::is_inf(v);
  const TensorHandle negative =
      ops::bool_or(ops::lower_elem(v, 0.0),
                   ops::bool_and(ops::equal_elem(v, 0.0), ops::lower_elem(ops::recip(v), 0.0)));
  const double smallest_normal = std::ldexp(1.0, static_cast<int>(1 - f.bias));
  const TensorHandle normal = ops::bool_and(ops::greater_equal_elem(a, smallest_normal),
                                            ops::bool_not(ops::bool_or(nan, inf)));
  const TensorHandle safe = ops::mask_where(ops::full_like(a, 1.0), normal, a);
  TensorHandle e = ops::floor(ops::div_scalar(ops::log(safe), std::log(2.0)));
  // log's rounding may put e one off near a power of two: corrected against exact powers.
  e = ops::sub(e, ops::cast(ops::greater(power_of_two(node, e), safe), DType::F64));
  e = ops::add(e, ops::cast(ops::lower_equal(ops::mul_scalar(power_of_two(node, e), 2.0), safe),
                            DType::F64));
  const double top = static_cast<double>((int64_t{1} << f.exponent) - 1);
  const double scale = std::ldexp(1.0, static_cast<int>(f.mantissa));
  TensorHandle field =
      ops::where(normal, ops::add_scalar(e, static_cast<double>(f.bias)), ops::full_like(e, 0.0));
  field = ops::mask_fill(field, ops::bool_or(nan, inf), top);
  TensorHandle mantissa = ops::where(
      normal, ops::mul_scalar(ops::sub_scalar(ops::div(a, power_of_two(node, e)), 1.0), scale),
      ops::div_scalar(ops::mask_fill(a, ops::bool_or(nan, inf), 0.0),
                      std::ldexp(1.0, static_cast<int>(1 - f.bias - f.mantissa))));
  mantissa = ops::mask_fill(mantissa, nan, scale / 2);
  const auto u64 = [](const TensorHandle& t) { return ops::cast(t, DType::U64); };
  return ops::add(ops::add(shifted(u64(ops::cast(negative, DType::F64)), f.exponent + f.mantissa),
                           shifted(u64(field), f.mantissa)),
                  u64(mantissa));
}

/// The float (f64) whose bits in format f are v (u64).
TensorHandle float_of_bits(const OnnxNode& node, const TensorHandle& v, const Format& f) {
  const int64_t m_size = int64_t{1} << f.mantissa;
  const TensorHandle m = ops::cast(ops::remainder_scalar(v, m_size), DType::F64);
  const TensorHandle rest = ops::div_scalar(v, m_size);
  const TensorHandle e =
      ops::cast(ops::remainder_scalar(rest, int64_t{1} << f.exponent), DType::F64);
  const TensorHandle sign = ops::div_scalar(rest, int64_t{1} << f.exponent);
  const double top = static_cast<double>((int64_t{1} << f.exponent) - 1);
  const TensorHandle normal_value =
      ops::mul(ops::add_scalar(m, static_cast<double>(m_size)),
               power_of_two(node, ops::sub_scalar(e, static_cast<double>(f.bias + f.mantissa))));
  const TensorHandle small_value =
      ops::mul_scalar(m, std::ldexp(1.0, static_cast<int>(1 - f.bias - f.mantissa)));
  TensorHandle value = ops::where(ops::equal_elem(e, 0.0), small_value, normal_value);
  const TensorHandle special = ops::equal_elem(e, top);
  value = ops::mask_fill(value, ops::bool_and(special, ops::equal_elem(m, 0.0)),
                         std::numeric_limits<double>::infinity());
  value = ops::mask_fill(value, ops::bool_and(special, ops::greater_elem(m, 0.0)),
                         std::numeric_limits<double>::quiet_NaN());
  return ops::where(ops::equal_elem(sign, 1), ops::neg(value), value);
}

/// The unsigned integer type of a width in bytes.
DType unsigned_of_width(std::size_t bytes) {
  return bytes == 1 ? DType::U8 : bytes == 2 ? DType::U16 : bytes == 4 ? DType::U32 : DType::U64;
}

std::vector<OnnxValue> bit_cast(const OnnxNode& node) {
  const TensorHandle& x = node.tensor(0);
  const std::optional<int64_t> to = node.attr_int("to");
  const std::optional<DType> target = to ? dtype_of_onnx(static_cast<int32_t>(*to)) : std::nullopt;
  if (!target) node.fail("attribute 'to' names no ember dtype");
  if (dtype_size(*target) != dtype_size(x.dtype()))
    node.fail(x.dtype(), " and ", *target, " differ in width");
  const std::optional<Format> from = format_of(x.dtype()), into = format_of(*target);
  const bool scalar = node.input(0).scalar;
  if (!from && !into) return one(ops::cast(x, *target), scalar);  // integers wrap as bits do
  const DType width = unsigned_of_width(dtype_size(x.dtype()));
  const TensorHandle bits =
      from ? float_bits(node, x, *from) : ops::cast(ops::cast(x, width), DType::U64);
  if (into) return one(ops::cast(float_of_bits(node, bits, *into), *target), scalar);
  return one(ops::cast(ops::cast(bits, width), *target), scalar);
}

}  // namespace

void add_bitcast_importers(OnnxImporters& table) {
  table.insert({{"BitCast", bit_cast}});
}

}  // namespace ember::detail
