// Importers of ONNX's random ops: RandomUniform, RandomNormal, their *Like forms, Bernoulli,
// Multinomial, and Dropout (random in training mode). They draw from ember's seeded generator
// (docs/random.md): each draw is an ember random op, which takes its key from the stream of the
// device the graph runs on, so `Device::seed` makes a run reproducible. ONNX's `seed` attribute
// names a NumPy generator state ember has no equivalent of, and is not read. These ops are never
// folded while the graph is built (draws_random): a fold would draw once, from ndarray's stream,
// and every run would then repeat that one draw.
#include <cmath>

#include "graph/onnx/onnx_import_util.h"
#include "graph/onnx/onnx_model.h"

namespace ember::detail {
namespace {

/// The float dtype of the attribute "dtype", fallback where absent.
DType float_dtype(const OnnxNode& node, DType fallback) {
  const std::optional<int64_t> code = node.attr_int("dtype");
  const std::optional<DType> dtype =
      code ? dtype_of_onnx(static_cast<int32_t>(*code)) : std::optional(fallback);
  if (!dtype || kind_of(*dtype) != TensorKind::Float)
    node.fail("dtype ", code.value_or(onnx_type(fallback)), " is not a float type");
  return *dtype;
}

/// Draws of distribution in dtype: shaped as ONNX's dims (none: a scalar).
OnnxValue draw(const OnnxNode& node, const std::vector<int64_t>& dims,
               const Distribution& distribution, DType dtype) {
  for (int64_t dim : dims) {
    if (dim < 0) node.fail("shape has a negative dim ", dim);
  }
  const Shape shape = dims.empty() ? Shape{1} : Shape(dims);
  return {ops::random(shape, distribution, TensorCreationOptions(node.device()).with_dtype(dtype),
                      TensorKind::Float),
          dims.empty()};
}

/// The "shape" attribute of RandomUniform and RandomNormal (required).
std::vector<int64_t> shape_attribute(const OnnxNode& node) {
  const std::optional<std::vector<int64_t>> shape = node.attr_ints("shape");
  if (!shape) node.fail("the attribute 'shape' is required");
  return *shape;
}

Distribution uniform_of(const OnnxNode& node) {
  const double low = node.attr_float("low", 0.0F), high = node.attr_float("high", 1.0F);
  if (!(low <= high) || !std::isfinite(high - low))
    node.fail("low ", low, " and high ", high, " do not bound a finite range");
  return Distribution::uniform(low, high);
}

Distribution normal_of(const OnnxNode& node) {
  const double mean = node.attr_float("mean", 0.0F), scale = node.attr_float("scale", 1.0F);
  if (!std::isfinite(mean) || !std::isfinite(scale))
    node.fail("mean ", mean, " and scale ", scale, " must be finite");
  return Distribution::normal(mean, scale);
}

std::vector<OnnxValue> random_uniform(const OnnxNode& node) {
  return {draw(node, shape_attribute(node), uniform_of(node), float_dtype(node, DType::F32))};
}

std::vector<OnnxValue> random_normal(const OnnxNode& node) {
  return {draw(node, shape_attribute(node), normal_of(node), float_dtype(node, DType::F32))};
}

std::vector<OnnxValue> random_uniform_like(const OnnxNode& node) {
  const OnnxValue& like = node.input(0);
  return {draw(node, onnx_dims(like), uniform_of(node), float_dtype(node, like.tensor.dtype()))};
}

std::vector<OnnxValue> random_normal_like(const OnnxNode& node) {
  const OnnxValue& like = node.input(0);
  return {draw(node, onnx_dims(like), normal_of(node), float_dtype(node, like.tensor.dtype()))};
}

/// Bernoulli: 1 where a uniform draw on [0, 1) (in f64) is below the probability, so with that
/// probability; in the dtype asked (any ember has), else the input's.
std::vector<OnnxValue> bernoulli(const OnnxNode& node) {
  const OnnxValue& p = node.input(0);
  if (kind_of(p.tensor.dtype()) != TensorKind::Float)
    node.fail("the probabilities are ", p.tensor.dtype(), ", not a float type");
  DType dtype = p.tensor.dtype();
  if (const std::optional<int64_t> code = node.attr_int("dtype")) {
    const std::optional<DType> asked = dtype_of_onnx(static_cast<int32_t>(*code));
    if (!asked) node.fail("dtype ", *code, " has no ember dtype");
    dtype = *asked;
  }
  const OnnxValue u = draw(node, onnx_dims(p), Distribution::Default, DType::F64);
  return one(ops::cast(ops::lower(u.tensor, ops::cast(p.tensor, DType::F64)), dtype), p.scalar);
}

/// The most entries Multinomial's comparison of draws with the cumulative probabilities may have.
constexpr int64_t kMaxMultinomialEntries = int64_t{1} << 24;

/// Multinomial over [batch, classes] unnormalized log-probabilities: sample_size classes per row,
/// each the number of cumulative probabilities (a softmax's, in f64) at or below a uniform draw
/// (inverse transform sampling), the last class where rounding leaves the total below the draw.
std::vector<OnnxValue> multinomial(const OnnxNode& node) {
  const TensorHandle& logits = node.tensor(0);
  const int64_t samples = node.attr_int("sample_size", 1);
  const std::optional<DType> dtype = dtype_of_onnx(static_cast<int32_t>(node.attr_int("dtype", 6)));
  if (!dtype || (*dtype != DType::I32 && *dtype != DType::I64))
    node.fail("dtype ", node.attr_int("dtype", 6), " is neither INT32 nor INT64");
  if (logits.rank() != 2 || kind_of(logits.dtype()) != TensorKind::Float)
    node.fail("input ", logits.shape(), " ", logits.dtype(), " is not [batch, classes] float");
  const int64_t batch = logits.shape().dims()[0], classes = logits.shape().dims()[1];
  if (samples < 1 || classes < 1 ||
      (batch > 0 && samples > kMaxMultinomialEntries / batch / classes))
    node.fail("sample_size ", samples, " of ", logits.shape(), ": more than 2^24 comparisons");
  const TensorHandle cdf = ops::cumsum(ops::softmax(ops::cast(logits, DType::F64), 1), 1);
  const TensorHandle u =
      draw(node, {batch, samples, 1}, Distribution::Default, DType::F64).tensor;  // [B, S, 1]
  const TensorHandle below =
      ops::lower_equal(ops::reshape(cdf, {batch, 1, classes}), u);  // [B, S, C]
  const TensorHandle index = ops::sum_dim(ops::cast(below, DType::I64), 2);
  return one(ops::cast(ops::reshape(ops::clamp_max(index, classes - 1), {batch, samples}), *dtype));
}

/// Dropout: at inference (or with ratio 0) the input and a mask of ones; in training mode each
/// element kept where a uniform draw on [0, 1) is at least the ratio, as ONNX's reference draws,
/// and scaled by 1 / (1 - ratio) in the input's dtype.
std::vector<OnnxValue> dropout(const OnnxNode& node) {
  const bool training = node.has(2) && node.known_scalar(2, "training_mode") != 0;
  const double ratio = node.has(1) ? node.known_scalar(1, "ratio") : 0.5;
  const OnnxValue& x = node.input(0);
  if (!training || ratio == 0.0)
    return {x, {ops::full_like(ops::cast(x.tensor, DType::Bool), true), x.scalar}};
  if (!(ratio > 0.0 && ratio < 1.0)) node.fail("ratio ", ratio, " is not in [0, 1)");
  const TensorHandle u = draw(node, onnx_dims(x), Distribution::Default, DType::F64).tensor;
  const TensorHandle keep = ops::greater_equal_elem(u, ratio);
  const TensorHandle kept =
      ops::mul_scalar(ops::mul(x.tensor, ops::cast(keep, x.tensor.dtype())), 1.0 / (1.0 - ratio));
  return {{kept, x.scalar}, {keep, x.scalar}};
}

/// The random ops: the one list both the table and draws_random read.
const std::vector<std::pair<std::string, OnnxImporter>>& random_importers() {
  static const std::vector<std::pair<std::string, OnnxImporter>> importers = {
      {"RandomUniform", random_uniform},
      {"RandomNormal", random_normal},
      {"RandomUniformLike", random_uniform_like},
      {"RandomNormalLike", random_normal_like},
      {"Bernoulli", bernoulli},
      {"Multinomial", multinomial},
      {"Dropout", dropout},
  };
  return importers;
}

}  // namespace

bool draws_random(const std::string& op_type) {
  for (const auto& [name, importer] : random_importers()) {
    if (name == op_type) return true;
  }
  return false;
}

void add_random_importers(OnnxImporters& table) {
  table.insert(random_importers().begin(), random_importers().end());
}

}  // namespace ember::detail
