// Importers of ONNX's elementwise ops: unary math, activations, binary and variadic arithmetic,
// comparisons, logic, Where, Cast and Clip. ONNX broadcasts as NumPy does, as ember's binary ops.
#include <cmath>

#include "ember/activation_functions.h"
#include "graph/onnx/onnx_import_util.h"
#include "graph/onnx/onnx_model.h"

namespace ember::detail {
namespace {

using Unary = TensorHandle (*)(const TensorHandle&);
using Binary = TensorHandle (*)(const TensorHandle&, const TensorHandle&);

template <Unary F>
std::vector<OnnxValue> unary(const OnnxNode& node) {
  return one(F(node.tensor(0)), node.input(0).scalar);
}

template <Binary F>
std::vector<OnnxValue> binary(const OnnxNode& node) {
  return one(F(node.tensor(0), node.tensor(1)), all_scalar(node));
}

/// Max, Min, Sum: F folded over one or more inputs.
template <Binary F>
std::vector<OnnxValue> variadic(const OnnxNode& node) {
  TensorHandle result = node.tensor(0);
  for (std::size_t i = 1; i < node.input_count(); ++i)
    result = F(result, node.tensor(i));
  return one(result, all_scalar(node));
}

std::vector<OnnxValue> mean_of(const OnnxNode& node) {
  const TensorHandle sum = variadic<ops::add>(node)[0].tensor;
  return one(ops::div_scalar(sum, static_cast<double>(node.input_count())), all_scalar(node));
}

std::vector<OnnxValue> identity(const OnnxNode& node) {
  return {node.input(0)};
}

std::vector<OnnxValue> softplus(const OnnxNode& node) {
  return one(ops::softplus(node.tensor(0), 1.0), node.input(0).scalar);
}

/// The hyperbolic functions ember has no op of, from exp, log and sqrt.
TensorHandle sinh(const TensorHandle& x) {
  return ops::mul_scalar(ops::sub(ops::exp(x), ops::exp(ops::neg(x))), 0.5);
}

TensorHandle cosh(const TensorHandle& x) {
  return ops::mul_scalar(ops::add(ops::exp(x), ops::exp(ops::neg(x))), 0.5);
}

/// log(x + sqrt(x^2 + 1)), odd: computed for |x| and given x's sign, which keeps it accurate
/// for large negative x.
TensorHandle asinh(const TensorHandle& x) {
  const TensorHandle a = ops::abs(x);
  const TensorHandle value = ops::log(ops::add(a, ops::sqrt(ops::add_scalar(ops::mul(a, a), 1.0))));
  return ops::mul(ops::sign(x), value);
}

TensorHandle acosh(const TensorHandle& x) {
  return ops::log(ops::add(x, ops::sqrt(ops::sub_scalar(ops::mul(x, x), 1.0))));
}

/// log((1 + x) / (1 - x)) / 2.
TensorHandle atanh(const TensorHandle& x) {
  return ops::mul_scalar(ops::log(ops::div(ops::add_scalar(x, 1.0), ops::rsub_scalar(x, 1.0))),
                         0.5);
}

/// x * sigmoid(alpha x).
std::vector<OnnxValue> swish(const OnnxNode& node) {
  const TensorHandle& x = node.tensor(0);
  const double alpha = node.attr_float("alpha", 1.0F);
  return one(ops::mul(x, ops::sigmoid(ops::mul_scalar(x, alpha))), node.input(0).scalar);
}

/// swish(a, alpha) * b.
std::vector<OnnxValue> swiglu(const OnnxNode& node) {
  const TensorHandle& a = node.tensor(0);
  const double alpha = node.attr_float("alpha", 1.0F);
  const TensorHandle gate = ops::mul(a, ops::sigmoid(ops::mul_scalar(a, alpha)));
  return one(ops::mul(gate, node.tensor(1)), all_scalar(node));
}

/// x / (1 + |x|).
std::vector<OnnxValue> softsign(const OnnxNode& node) {
  const TensorHandle& x = node.tensor(0);
  return one(ops::div(x, ops::add_scalar(ops::abs(x), 1.0)), node.input(0).scalar);
}

std::vector<OnnxValue> gelu(const OnnxNode& node) {
  const std::string approximate = node.attr_string("approximate", "none");
  if (approximate != "none" && approximate != "tanh")
    node.fail("approximate '", approximate, "' is neither 'none' nor 'tanh'");
  const TensorHandle& x = node.tensor(0);
  return one(approximate == "tanh" ? ops::gelu_tanh(x) : ops::gelu(x), node.input(0).scalar);
}

std::vector<OnnxValue> leaky_relu(const OnnxNode& node) {
  return one(ops::leaky_relu(node.tensor(0), node.attr_float("alpha", 0.01F)),
             node.input(0).scalar);
}

std::vector<OnnxValue> elu(const OnnxNode& node) {
  return one(ops::elu(node.tensor(0), node.attr_float("alpha", 1.0F)), node.input(0).scalar);
}

std::vector<OnnxValue> celu(const OnnxNode& node) {
  return one(ops::celu(node.tensor(0), node.attr_float("alpha", 1.0F)), node.input(0).scalar);
}

/// gamma * elu(x, alpha), ONNX's defaults being PyTorch's fixed constants.
std::vector<OnnxValue> selu(const OnnxNode& node) {
  const float alpha = node.attr_float("alpha", 1.67326319217681884765625F);
  const float gamma = node.attr_float("gamma", 1.05070102214813232421875F);
  return one(ops::mul_scalar(ops::elu(node.tensor(0), alpha), gamma), node.input(0).scalar);
}

/// max(0, min(1, alpha x + beta)).
std::vector<OnnxValue> hard_sigmoid(const OnnxNode& node) {
  const float alpha = node.attr_float("alpha", 0.2F);
  const float beta = node.attr_float("beta", 0.5F);
  const TensorHandle line = ops::add_scalar(ops::mul_scalar(node.tensor(0), alpha), beta);
  return one(ops::clamp(line, 0.0, 1.0), node.input(0).scalar);
}

/// x where x > alpha, else 0.
std::vector<OnnxValue> thresholded_relu(const OnnxNode& node) {
  const TensorHandle& x = node.tensor(0);
  const double alpha = node.attr_float("alpha", 1.0F);
  return one(ops::mask_fill(x, ops::lower_equal_elem(x, alpha), 0.0), node.input(0).scalar);
}

/// x where x >= 0, else slope * x; slope broadcasts to x (ONNX's unidirectional broadcast).
std::vector<OnnxValue> prelu(const OnnxNode& node) {
  const TensorHandle& x = node.tensor(0);
  return one(ops::where(ops::lower_elem(x, 0.0), ops::mul(x, node.tensor(1)), x),
             node.input(0).scalar);
}

std::vector<OnnxValue> is_inf(const OnnxNode& node) {
  const TensorHandle& x = node.tensor(0);
  const bool positive = node.attr_int("detect_positive", 1) != 0;
  const bool negative = node.attr_int("detect_negative", 1) != 0;
  const TensorHandle infinite = ops::is_inf(x);
  TensorHandle result = infinite;
  if (!positive) result = ops::bool_and(result, ops::lower_elem(x, 0.0));
  if (!negative) result = ops::bool_and(result, ops::greater_elem(x, 0.0));
  return one(result, node.input(0).scalar);
}

/// Pow: ONNX lets the exponent's type differ from the base's, and the result has the base's:
/// both computed in f64, then cast back.
std::vector<OnnxValue> pow(const OnnxNode& node) {
  const TensorHandle& base = node.tensor(0);
  const TensorHandle& exponent = node.tensor(1);
  TensorHandle result;
  if (base.kind() == TensorKind::Float) {
    result = ops::powf(base, ops::cast(exponent, base.dtype()));
  } else {
    result = ops::cast(ops::powf(ops::cast(base, DType::F64), ops::cast(exponent, DType::F64)),
                       base.dtype());
  }
  return one(result, all_scalar(node));
}

/// Mod: fmod 0 takes the divisor's sign (Python's %), fmod 1 the dividend's (C's fmod).
std::vector<OnnxValue> mod(const OnnxNode& node) {
  const TensorHandle& a = node.tensor(0);
  const TensorHandle& b = node.tensor(1);
  const int64_t fmod = node.attr_int("fmod", 0);
  if (fmod != 0 && fmod != 1) node.fail("fmod ", fmod, " is neither 0 nor 1");
  const TensorHandle r = ops::remainder(a, b);
  if (fmod == 0) return one(r, all_scalar(node));
  // r has b's sign; where it is non-zero and a's sign differs, C's fmod is r - b.
  const TensorHandle differs = ops::bool_and(
      ops::not_equal_elem(r, 0), ops::not_equal(ops::lower_elem(r, 0), ops::lower_elem(a, 0)));
  return one(ops::where(differs, ops::sub(r, b), r), all_scalar(node));
}

std::vector<OnnxValue> where(const OnnxNode& node) {
  return one(ops::where(node.tensor(0), node.tensor(1), node.tensor(2)), all_scalar(node));
}

DType cast_target(const OnnxNode& node, int64_t to) {
  const std::optional<DType> dtype = dtype_of_onnx(static_cast<int32_t>(to));
  if (!dtype) node.fail("cast to ", onnx_type_name(static_cast<int32_t>(to)), ", no ember dtype");
  return *dtype;
}

std::vector<OnnxValue> cast(const OnnxNode& node) {
  const std::optional<int64_t> to = node.attr_int("to");
  if (!to) node.fail("attribute 'to' is required");
  return one(ops::cast(node.tensor(0), cast_target(node, *to)), node.input(0).scalar);
}

std::vector<OnnxValue> cast_like(const OnnxNode& node) {
  return one(ops::cast(node.tensor(0), node.tensor(1).dtype()), node.input(0).scalar);
}

/// Clip: min and max (optional inputs) applied in that order, so min > max gives max.
std::vector<OnnxValue> clip(const OnnxNode& node) {
  TensorHandle x = node.tensor(0);
  if (node.has(1)) x = ops::maximum(x, ops::cast(node.tensor(1), x.dtype()));
  if (node.has(2)) x = ops::minimum(x, ops::cast(node.tensor(2), x.dtype()));
  return one(x, node.input(0).scalar);
}

}  // namespace

void add_elementwise_importers(OnnxImporters& table) {
  table.insert({
      {"Abs", unary<ops::abs>},
      {"Neg", unary<ops::neg>},
      {"Sign", unary<ops::sign>},
      {"Exp", unary<ops::exp>},
      {"Log", unary<ops::log>},
      {"Sqrt", unary<ops::sqrt>},
      {"Sin", unary<ops::sin>},
      {"Cos", unary<ops::cos>},
      {"Tan", unary<ops::tan>},
      {"Tanh", unary<ops::tanh>},
      {"Sinh", unary<sinh>},
      {"Cosh", unary<cosh>},
      {"Asinh", unary<asinh>},
      {"Acosh", unary<acosh>},
      {"Atanh", unary<atanh>},
      {"Erf", unary<ops::erf>},
      {"Reciprocal", unary<ops::recip>},
      {"Floor", unary<ops::floor>},
      {"Ceil", unary<ops::ceil>},
      {"Round", unary<ops::round>},
      {"Not", unary<ops::bool_not>},
      {"IsNaN", unary<ops::is_nan>},
      {"IsInf", is_inf},
      {"Relu", unary<ops::relu>},
      {"Sigmoid", unary<ops::sigmoid>},
      {"Softplus", softplus},
      {"Softsign", softsign},
      {"Swish", swish},
      {"SwiGLU", swiglu},
      {"Mish", unary<ops::mish>},
      {"HardSwish", unary<ops::hard_swish>},
      {"HardSigmoid", hard_sigmoid},
      {"Gelu", gelu},
      {"LeakyRelu", leaky_relu},
      {"Elu", elu},
      {"Celu", celu},
      {"Selu", selu},
      {"ThresholdedRelu", thresholded_relu},
      {"PRelu", prelu},
      {"Identity", identity},
      {"OptionalGetElement", identity},  // of a tensor: optionals are imported only as tensors
      {"Add", binary<ops::add>},
      {"Sub", binary<ops::sub>},
      {"Mul", binary<ops::mul>},
      {"Div", binary<ops::div>},
      {"Pow", pow},
      {"Mod", mod},
      {"And", binary<ops::bool_and>},
      {"Or", binary<ops::bool_or>},
      {"Xor", binary<ops::bool_xor>},
      {"Equal", binary<ops::equal>},
      {"Greater", binary<ops::greater>},
      {"GreaterOrEqual", binary<ops::greater_equal>},
      {"Less", binary<ops::lower>},
      {"LessOrEqual", binary<ops::lower_equal>},
      {"Max", variadic<ops::maximum>},
      {"Min", variadic<ops::minimum>},
      {"Sum", variadic<ops::add>},
      {"Mean", mean_of},
      {"Where", where},
      {"Cast", cast},
      {"CastLike", cast_like},
      {"Clip", clip},
  });
}

}  // namespace ember::detail
