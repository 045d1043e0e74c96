// The elementwise ops: the float ones, the comparisons, the Bool ops, where and mask_fill are
// ember's formulas (ir/formulas.h) with ATen ops as the primitives (AtenMath), so that ATen
// computes exactly what every other backend computes (NaN rules, relu's -0, remainder's sign);
// the integer arithmetic is ATen's with ember's checks (division by zero, negative powers) and
// wrap-around (MIN / -1) in front.
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "backends/libtorch/aten.h"
#include "ir/formulas.h"

namespace ember::libtorch {
namespace {

/// The formulas' target: a value is a tensor of one float type (or a 0-dim constant of it), a mask
/// a Bool tensor. Constants take options' dtype.
struct AtenMath {
  using Value = at::Tensor;
  using Mask = at::Tensor;
  at::TensorOptions options;

  Value constant(double c) const { return at::scalar_tensor(c, options); }
  Value lowest() const {
    return constant(options.dtype() == at::kDouble ? std::numeric_limits<double>::lowest()
                                                   : std::numeric_limits<float>::lowest());
  }
  Value add(const Value& a, const Value& b) const { return at::add(a, b); }
  Value sub(const Value& a, const Value& b) const { return at::sub(a, b); }
  Value mul(const Value& a, const Value& b) const { return at::mul(a, b); }
  Value div(const Value& a, const Value& b) const { return at::div(a, b); }
  Value mul_add(const Value& a, const Value& b, const Value& c) const {
    return at::addcmul(c, a, b);
  }
  // The formulas' min and max: b < a ? b : a, so that a NaN in a propagates (at::minimum would
  // propagate b's too).
  Value min(const Value& a, const Value& b) const { return at::where(at::lt(b, a), b, a); }
  Value max(const Value& a, const Value& b) const { return at::where(at::lt(a, b), b, a); }
  Value pow(const Value& a, const Value& b) const { return at::pow(a, b); }
  Value fmod(const Value& a, const Value& b) const { return at::fmod(a, b); }
  Value neg(const Value& x) const { return at::neg(x); }
  Value abs(const Value& x) const { return at::abs(x); }
  Value sqrt(const Value& x) const { return at::sqrt(x); }
  Value floor(const Value& x) const { return at::floor(x); }
  Value ceil(const Value& x) const { return at::ceil(x); }
  Value round(const Value& x) const { return at::round(x); }  // half to even
  Value exp(const Value& x) const { return at::exp(x); }
  Value expm1(const Value& x) const { return at::expm1(x); }
  Value log(const Value& x) const { return at::log(x); }
  Value log1p(const Value& x) const { return at::log1p(x); }
  Value sin(const Value& x) const { return at::sin(x); }
  Value cos(const Value& x) const { return at::cos(x); }
  Value tan(const Value& x) const { return at::tan(x); }
  Value tanh(const Value& x) const { return at::tanh(x); }
  Value erf(const Value& x) const { return at::erf(x); }
  Value erfc(const Value& x) const { return at::erfc(x); }
  Mask lt(const Value& a, const Value& b) const { return at::lt(a, b); }
  Mask le(const Value& a, const Value& b) const { return at::le(a, b); }
  Mask gt(const Value& a, const Value& b) const { return at::gt(a, b); }
  Mask ge(const Value& a, const Value& b) const { return at::ge(a, b); }
  Mask eq(const Value& a, const Value& b) const { return at::eq(a, b); }
  Mask ne(const Value& a, const Value& b) const { return at::ne(a, b); }
  Mask is_nan(const Value& x) const { return at::isnan(x); }
  Mask mask_and(const Mask& a, const Mask& b) const { return at::logical_and(a, b); }
  Mask mask_or(const Mask& a, const Mask& b) const { return at::logical_or(a, b); }
  Mask mask_xor(const Mask& a, const Mask& b) const { return at::logical_xor(a, b); }
  Mask mask_not(const Mask& a) const { return at::logical_not(a); }
  Value select(const Mask& m, const Value& a, const Value& b) const { return at::where(m, a, b); }
};

/// The formulas' target for values like x (widened: half precision computes in f32).
AtenMath math_for(const at::Tensor& x) {
  return {x.options()};
}

/// Throws "[op] integer division by zero" when b holds a zero.
void check_divisor(const Args& a, const at::Tensor& b) {
  if (at::eq(b, 0).any().item<bool>())
    throw InvalidArgument(a.prefix() + "integer division by zero");
}

/// Throws "[op] an integer base needs a non-negative exponent, got -2" naming the first negative
/// exponent of y, as ndarray's.
void check_exponents(const Args& a, const at::Tensor& y) {
  const at::Tensor negative = at::lt(y, 0).reshape({-1});
  if (!negative.any().item<bool>()) return;
  const at::Tensor first = y.reshape({-1})[negative.nonzero()[0][0]];
  throw InvalidArgument(a.prefix() + "an integer base needs a non-negative exponent, got " +
                        std::to_string(first.item<int64_t>()));
}

/// Where b is -1 (a signed b: -1 would read as 255 in a u8 comparison). MIN / -1 and MIN % -1
/// trap on x86, where ember wraps, so these divisors are replaced by 1.
std::optional<at::Tensor> minus_ones(const at::Tensor& b) {
  if (!at::isSignedType(b.scalar_type())) return std::nullopt;
  return at::eq(b, -1);
}

/// b with the divisors minus_one marks replaced by 1.
at::Tensor without_minus_one(const at::Tensor& b, const std::optional<at::Tensor>& minus_one) {
  return minus_one ? at::where(*minus_one, at::ones_like(b), b) : b;
}

/// Integer op of a and b (broadcast): wrapping arithmetic, as ndarray's (arithmetic.h).
at::Tensor integer_binary(const Args& a, ir::BinaryOp op, const at::Tensor& x,
                          const at::Tensor& y) {
  using ir::BinaryOp;
  switch (op) {
    case BinaryOp::Add:
      return at::add(x, y);
    case BinaryOp::Sub:
      return at::sub(x, y);
    case BinaryOp::Mul:
      return at::mul(x, y);
    case BinaryOp::Div: {
      check_divisor(a, y);
      const std::optional<at::Tensor> minus_one = minus_ones(y);
      const at::Tensor quotient = at::div(x, without_minus_one(y, minus_one), "trunc");
      // x / -1 is -x, which wraps MIN to MIN.
      return minus_one ? at::where(*minus_one, at::neg(x), quotient) : quotient;
    }
    case BinaryOp::Rem:
      check_divisor(a, y);
      return at::remainder(x, without_minus_one(y, minus_ones(y)));  // x % 1 is x % -1: 0
    case BinaryOp::Pow:
      check_exponents(a, y);
      return at::pow(x, y);
    case BinaryOp::Maximum:
      return at::maximum(x, y);
    case BinaryOp::Minimum:
      return at::minimum(x, y);
    case BinaryOp::And:
    case BinaryOp::Or:
    case BinaryOp::Xor:
      break;
  }
  throw InvalidArgument(a.prefix() + "not defined for integers");
}

/// Binary op of x and y (one dtype, broadcast): the formulas for floats and Bool, the integer
/// arithmetic otherwise.
at::Tensor binary(const Args& a, ir::BinaryOp op, const at::Tensor& x, const at::Tensor& y) {
  if (x.scalar_type() == at::kBool) return formula::logical(AtenMath{}, op, x, y);
  if (!is_float(x)) return integer_binary(a, op, x, y);
  const at::Tensor wide_x = widened(x);
  return formula::binary(math_for(wide_x), op, wide_x, widened(y));
}

/// The scalar operand of a compare_elem on an integer or Bool x: compared exactly, in int64 with
/// an integer value, in f64 with a float one (ndarray's rule), together with x in that type.
std::pair<at::Tensor, at::Tensor> exact_pair(const at::Tensor& x, const Scalar& value) {
  if (value.kind == Scalar::Kind::Float)
    return {x.to(at::kDouble), at::scalar_tensor(value.f, x.options().dtype(at::kDouble))};
  return {x.to(at::kLong), at::scalar_tensor(value.i, x.options().dtype(at::kLong))};
}

/// The doubles [lowest, end) of integer type I that truncate to an I exactly.
template <typename I>
std::pair<double, double> exact_range() {
  return {static_cast<double>(std::numeric_limits<I>::lowest()),
          std::ldexp(1.0, std::numeric_limits<I>::digits)};
}

/// Float x cast to integer type as ember casts: truncated toward zero, saturated at the type's
/// range, NaN to 0 (C++'s conversion, and so ATen's, is undefined out of range). Computed in
/// f64, which holds every float and every bound exactly.
at::Tensor saturated(const at::Tensor& x, at::ScalarType type) {
  const auto [lowest, end] = type == at::kLong    ? exact_range<int64_t>()
                             : type == at::kInt   ? exact_range<int32_t>()
                             : type == at::kShort ? exact_range<int16_t>()
                             : type == at::kChar  ? exact_range<int8_t>()
                                                  : exact_range<uint8_t>();
  const at::Tensor t = at::trunc(at::nan_to_num(x.to(at::kDouble), 0.0));
  // The largest double below end truncates to the type's max, but in int64, whose max no double
  // holds: there the values from 2^63 on are set to the max after.
  const at::Tensor in_range = t.clamp(lowest, std::nextafter(end, 0.0)).to(type);
  if (type != at::kLong) return in_range;
  return at::where(at::ge(t, end), at::full_like(in_range, INT64_MAX), in_range);
}

}  // namespace

Results run(const ir::Unary& op, const Args& a) {
  const at::Tensor& x = a.in[0];
  if (op.op == ir::UnaryOp::Not) return {formula::bool_not(AtenMath{}, x)};
  // An integer's sign is ATen's (the formula's constant -1 is no u8).
  if (op.op == ir::UnaryOp::Sign && !is_float(x)) return {at::sign(x)};
  const at::Tensor wide = widened(x);
  const AtenMath m = math_for(wide);
  if (!formula::is_float_unary(op.op)) return {formula::float_predicate(m, op.op, wide)};
  return {formula::unary(m, op.op, wide)};
}

Results run(const ir::Binary& op, const Args& a) {
  return {binary(a, op.op, a.in[0], a.in[1])};
}

Results run(const ir::BinaryScalar& op, const Args& a) {
  const at::Tensor& x = a.in[0];
  const at::Tensor value = scalar_tensor(op.value, a.out[0].dtype, x.options());
  return {op.scalar_lhs ? binary(a, op.op, value, x) : binary(a, op.op, x, value)};
}

Results run(const ir::Compare& op, const Args& a) {
  const at::Tensor x = widened(a.in[0]);
  return {formula::compare(math_for(x), op.op, x, widened(a.in[1]))};
}

Results run(const ir::CompareScalar& op, const Args& a) {
  const at::Tensor& x = a.in[0];
  if (is_float(x)) {
    // A float tensor compares with the value rounded to its dtype (the scalar does not promote).
    const DType dtype = x.scalar_type() == at::kDouble  ? DType::F64
                        : x.scalar_type() == at::kFloat ? DType::F32
                        : x.scalar_type() == at::kHalf  ? DType::F16
                                                        : DType::BF16;
    const at::Tensor wide = widened(x);
    return {formula::compare(math_for(wide), op.op, wide,
                             widened(scalar_tensor(op.value, dtype, x.options())))};
  }
  const auto [exact, value] = exact_pair(x, op.value);
  return {formula::compare(math_for(exact), op.op, exact, value)};
}

Results run(const ir::Where& /*op*/, const Args& a) {
  return {formula::where(AtenMath{}, a.in[0], a.in[1], a.in[2])};
}

Results run(const ir::MaskFill& op, const Args& a) {
  const at::Tensor& x = a.in[0];
  const at::Tensor value = scalar_tensor(op.value, a.out[0].dtype, x.options());
  return {formula::mask_fill(AtenMath{}, x, a.in[1], value)};
}

Results run(const ir::Cast& op, const Args& a) {
  const at::Tensor& x = a.in[0];
  const at::ScalarType type = scalar_type(op.dtype, "cast");
  if (is_float(x) && is_int(op.dtype)) return {saturated(x, type)};
  // f64 and wide integers round to half precision once in ember (through round-to-odd), twice
  // (through f32) in ATen: ndarray's conversion runs on the host.
  const bool from_wide = x.scalar_type() == at::kDouble || !is_float(x);
  const bool to_half = op.dtype == DType::F16 || op.dtype == DType::BF16;
  if (to_half && from_wide && x.scalar_type() != at::kBool) return {};
  return {x.to(type)};
}

Results run(const ir::Activation& op, const Args& a) {
  const at::Tensor x = widened(a.in[0]);
  const AtenMath m = math_for(x);
  return {formula::activation(m, op.op, x, [&] { return m.constant(ir::parameter_of(op)); })};
}

}  // namespace ember::libtorch
