// Importers of ONNX's Atan, Asin and Acos, which ember's elementwise ops lack: the arctangent by
// Newton's method on tan(y) = x from a polynomial first guess (three steps take its error of
// 1.5e-3 below f64's rounding), in f64, for |x| <= 1, and pi/2 - atan(1/x) beyond;
// asin(x) = atan(x / sqrt((1 - x)(1 + x))) and acos(x) = pi/2 - asin(x). NaN, infinities and
// |x| > 1 (NaN for asin and acos) follow from the formulas.
#include <numbers>

#include "graph/onnx/onnx_import_util.h"

namespace ember::detail {
namespace {

constexpr double kHalfPi = std::numbers::pi / 2;

/// atan(x) for |x| <= 1 (f64).
TensorHandle atan_inside(const TensorHandle& x) {
  const TensorHandle a = ops::abs(x);
  // pi/4 x - x (|x| - 1) (0.2447 + 0.0663 |x|): within 1.5e-3 of atan on [-1, 1].
  TensorHandle y = ops::sub(ops::mul_scalar(x, std::numbers::pi / 4),
                            ops::mul(ops::mul(x, ops::sub_scalar(a, 1.0)),
                                     ops::add_scalar(ops::mul_scalar(a, 0.0663), 0.2447)));
  for (int step = 0; step < 3; ++step) {
    const TensorHandle c = ops::cos(y);
    y = ops::sub(y, ops::mul(ops::sub(ops::tan(y), x), ops::mul(c, c)));
  }
  return y;
}

/// atan(x) for any x (f64).
TensorHandle atan_f64(const TensorHandle& x) {
  const TensorHandle outside = ops::greater_elem(ops::abs(x), 1.0);
  const TensorHandle folded = ops::mask_where(x, outside, ops::recip(x));
  const TensorHandle inner = atan_inside(folded);
  // Beyond 1: sign(x) pi/2 - atan(1/x).
  const TensorHandle outer = ops::sub(ops::mul_scalar(ops::sign(x), kHalfPi), inner);
  return ops::mask_where(inner, outside, outer);
}

/// 1 - x^2 as (1 - x)(1 + x), which keeps its digits near |x| = 1.
TensorHandle asin_f64(const TensorHandle& x) {
  const TensorHandle rest = ops::mul(ops::rsub_scalar(x, 1.0), ops::add_scalar(x, 1.0));
  return atan_f64(ops::div(x, ops::sqrt(rest)));
}

/// An elementwise importer computing f in f64 and rounding to the input's dtype.
template <TensorHandle (*F)(const TensorHandle&)>
std::vector<OnnxValue> in_f64(const OnnxNode& node) {
  const TensorHandle& x = node.tensor(0);
  if (x.kind() != TensorKind::Float) node.fail("input is ", x.dtype(), ", not a float");
  return one(ops::cast(F(ops::cast(x, DType::F64)), x.dtype()), node.input(0).scalar);
}

TensorHandle acos_f64(const TensorHandle& x) {
  return ops::rsub_scalar(asin_f64(x), kHalfPi);
}

}  // namespace

void add_arc_importers(OnnxImporters& table) {
  table.insert({
      {"Atan", in_f64<atan_f64>},
      {"Asin", in_f64<asin_f64>},
      {"Acos", in_f64<acos_f64>},
  });
}

}  // namespace ember::detail
