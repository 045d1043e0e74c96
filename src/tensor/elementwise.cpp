// Elementwise ops: unary, binary (with promotion), tensor-scalar, comparisons, masking, cast and
// clamp.
#include "ember/tensor_ops.h"

#include <utility>

#include "tensor/check.h"
#include "tensor/dispatch.h"
#include "tensor/promote.h"

namespace ember::ops {
namespace {

using ir::BinaryOp;
using ir::CompareOp;
using ir::UnaryOp;
using tensor::fail;
using tensor::KindRule;

TensorHandle unary(const TensorHandle& x, UnaryOp op, KindRule rule, std::string_view name) {
  tensor::require(x, rule, name);
  return tensor::run_one(ir::Unary{op}, {x});
}

TensorHandle binary(const TensorHandle& a, const TensorHandle& b, BinaryOp op, KindRule rule,
                    std::string_view name) {
  tensor::require(a, rule, name);
  tensor::require(b, rule, name);
  auto [lhs, rhs] = tensor::promote(a, b, name);
  // Moved into the list: a copy of a handle is an atomic increment (and its release a decrement).
  return tensor::run_one(ir::Binary{op}, {std::move(lhs), std::move(rhs)});
}

/// x op s, or s op x when scalar_lhs; s must be exact in x's dtype (its range is ir's rule).
TensorHandle binary_scalar(const TensorHandle& x, Scalar s, BinaryOp op, std::string_view name,
                           bool scalar_lhs = false) {
  tensor::require(x, KindRule::Numeric, name);
  tensor::check_exact_scalar(s, x.dtype(), name);
  return tensor::run_one(ir::BinaryScalar{op, s, scalar_lhs}, {x});
}

TensorHandle compare(const TensorHandle& a, const TensorHandle& b, CompareOp op,
                     std::string_view name) {
  auto [lhs, rhs] = tensor::promote(a, b, name);
  return tensor::run_one(ir::Compare{op}, {std::move(lhs), std::move(rhs)});
}

/// x op s for any scalar: a comparison is a fair question even where x's dtype cannot hold s
/// (u8 > -1 is true), and the backends compare exactly.
TensorHandle compare_elem(const TensorHandle& x, Scalar s, CompareOp op, std::string_view name) {
  tensor::require(x, KindRule::Any, name);
  return tensor::run_one(ir::CompareScalar{op, s}, {x});
}

/// a < b, exactly for two integer scalars.
bool scalar_less(const Scalar& a, const Scalar& b) {
  if (a.kind != Scalar::Kind::Float && b.kind != Scalar::Kind::Float) return a.i < b.i;
  return a.as_double() < b.as_double();
}

}  // namespace

#define EMBER_UNARY_OP(Enumerator, name, dtypes, ...)                                     \
  TensorHandle name(const TensorHandle& x) {                                              \
    return unary(x, UnaryOp::Enumerator, tensor::kind_rule(ir::DTypeSet::dtypes), #name); \
  }
#include "ember/ops.def"

TensorHandle add(const TensorHandle& a, const TensorHandle& b) {
  return binary(a, b, BinaryOp::Add, KindRule::Numeric, "add");
}
TensorHandle sub(const TensorHandle& a, const TensorHandle& b) {
  return binary(a, b, BinaryOp::Sub, KindRule::Numeric, "sub");
}
TensorHandle mul(const TensorHandle& a, const TensorHandle& b) {
  return binary(a, b, BinaryOp::Mul, KindRule::Numeric, "mul");
}
TensorHandle div(const TensorHandle& a, const TensorHandle& b) {
  return binary(a, b, BinaryOp::Div, KindRule::Numeric, "div");
}
TensorHandle remainder(const TensorHandle& a, const TensorHandle& b) {
  return binary(a, b, BinaryOp::Rem, KindRule::Numeric, "remainder");
}
TensorHandle powf(const TensorHandle& a, const TensorHandle& b) {
  return binary(a, b, BinaryOp::Pow, KindRule::Float, "powf");
}
TensorHandle maximum(const TensorHandle& a, const TensorHandle& b) {
  return binary(a, b, BinaryOp::Maximum, KindRule::Numeric, "maximum");
}
TensorHandle minimum(const TensorHandle& a, const TensorHandle& b) {
  return binary(a, b, BinaryOp::Minimum, KindRule::Numeric, "minimum");
}
TensorHandle bool_and(const TensorHandle& a, const TensorHandle& b) {
  return binary(a, b, BinaryOp::And, KindRule::Bool, "bool_and");
}
TensorHandle bool_or(const TensorHandle& a, const TensorHandle& b) {
  return binary(a, b, BinaryOp::Or, KindRule::Bool, "bool_or");
}
TensorHandle bool_xor(const TensorHandle& a, const TensorHandle& b) {
  return binary(a, b, BinaryOp::Xor, KindRule::Bool, "bool_xor");
}

TensorHandle add_scalar(const TensorHandle& x, Scalar s) {
  return binary_scalar(x, s, BinaryOp::Add, "add_scalar");
}
TensorHandle sub_scalar(const TensorHandle& x, Scalar s) {
  return binary_scalar(x, s, BinaryOp::Sub, "sub_scalar");
}
TensorHandle rsub_scalar(const TensorHandle& x, Scalar s) {
  return binary_scalar(x, s, BinaryOp::Sub, "rsub_scalar", true);
}
TensorHandle mul_scalar(const TensorHandle& x, Scalar s) {
  return binary_scalar(x, s, BinaryOp::Mul, "mul_scalar");
}
TensorHandle div_scalar(const TensorHandle& x, Scalar s) {
  return binary_scalar(x, s, BinaryOp::Div, "div_scalar");
}
TensorHandle rdiv_scalar(const TensorHandle& x, Scalar s) {
  return binary_scalar(x, s, BinaryOp::Div, "rdiv_scalar", true);
}
TensorHandle remainder_scalar(const TensorHandle& x, Scalar s) {
  return binary_scalar(x, s, BinaryOp::Rem, "remainder_scalar");
}
TensorHandle powf_scalar(const TensorHandle& x, double exponent) {
  tensor::require(x, KindRule::Float, "powf_scalar");
  return binary_scalar(x, Scalar(exponent), BinaryOp::Pow, "powf_scalar");
}
TensorHandle powi_scalar(const TensorHandle& x, int64_t exponent) {
  return binary_scalar(x, Scalar(exponent), BinaryOp::Pow, "powi_scalar");
}

TensorHandle clamp(const TensorHandle& x, Scalar min, Scalar max) {
  tensor::require(x, KindRule::Numeric, "clamp");
  if (scalar_less(max, min)) {
    fail("clamp", "min ", min, " > max ", max);
  }
  tensor::check_exact_scalar(min, x.dtype(), "clamp");
  tensor::check_exact_scalar(max, x.dtype(), "clamp");
  return clamp_max(clamp_min(x, min), max);
}
TensorHandle clamp_min(const TensorHandle& x, Scalar min) {
  return binary_scalar(x, min, BinaryOp::Maximum, "clamp_min");
}
TensorHandle clamp_max(const TensorHandle& x, Scalar max) {
  return binary_scalar(x, max, BinaryOp::Minimum, "clamp_max");
}

#define EMBER_COMPARE_OP(Enumerator, name, scalar_name)             \
  TensorHandle name(const TensorHandle& a, const TensorHandle& b) { \
    return compare(a, b, CompareOp::Enumerator, #name);             \
  }                                                                 \
  TensorHandle scalar_name(const TensorHandle& x, Scalar s) {       \
    return compare_elem(x, s, CompareOp::Enumerator, #scalar_name); \
  }
#include "ember/ops.def"

TensorHandle mask_where(const TensorHandle& x, const TensorHandle& mask,
                        const TensorHandle& value) {
  tensor::require(mask, KindRule::Bool, "mask_where");
  tensor::require_same_kind(x, value, "mask_where");
  // The result is x with entries replaced, so it keeps x's shape and dtype.
  const Shape& shape = x.shape();
  if (ir::broadcast_shapes(shape, mask.shape(), "mask_where") != shape ||
      ir::broadcast_shapes(shape, value.shape(), "mask_where") != shape) {
    fail("mask_where", "mask ", mask.shape(), " and value ", value.shape(),
         " must broadcast to x's shape ", shape);
  }
  return tensor::run_one(ir::Where{}, {mask, cast(value, x.dtype()), x});
}

TensorHandle mask_fill(const TensorHandle& x, const TensorHandle& mask, Scalar value) {
  tensor::require(mask, KindRule::Bool, "mask_fill");
  tensor::require(x, KindRule::Any, "mask_fill");
  tensor::check_exact_scalar(value, x.dtype(), "mask_fill");
  return tensor::run_one(ir::MaskFill{value}, {x, mask});
}

TensorHandle where(const TensorHandle& cond, const TensorHandle& a, const TensorHandle& b) {
  tensor::require(cond, KindRule::Bool, "where");
  auto [lhs, rhs] = tensor::promote(a, b, "where");
  return tensor::run_one(ir::Where{}, {cond, std::move(lhs), std::move(rhs)});
}

TensorHandle cast(const TensorHandle& x, DType dtype) {
  tensor::require(x, KindRule::Any, "cast");
  if (x.dtype() == dtype) return x;
  return tensor::run_one(ir::Cast{dtype}, {x});
}

}  // namespace ember::ops
