// Importers of the ONNX ops that make values known while the graph is built: Shape and Size
// (from the input's shape, whatever the input), Constant, ConstantOfShape, Range and
// OptionalHasElement (whether the input is given: ember imports optionals only as tensors).
#include <algorithm>
#include <cmath>

#include "graph/onnx/onnx_import_util.h"
#include "graph/onnx/onnx_model.h"

namespace ember::detail {
namespace {

/// The largest tensor Range makes on the host, and ConstantOfShape while the graph is built:
/// their sizes come from the model, which may be hostile.
constexpr int64_t kMaxBuiltElements = int64_t{1} << 24;

int64_t element_count(const OnnxNode& node, const std::vector<int64_t>& dims) {
  int64_t count = 1;
  for (int64_t dim : dims) {
    if (dim < 0) node.fail("dim ", dim, " is negative");
    if (__builtin_mul_overflow(count, dim, &count) || count > kMaxBuiltElements)
      node.fail("a tensor of dims ", Shape(dims), " is larger than ember builds here");
  }
  return count;
}

TensorHandle known_ints(const std::vector<int64_t>& values) {
  return ops::from_data(TensorData(values, Shape{static_cast<int64_t>(values.size())}),
                        TensorCreationOptions(Device::ndarray()).with_dtype(DType::I64),
                        TensorKind::Int);
}

/// Shape: known while building, whatever the input (start and end pick a range of dims).
std::vector<OnnxValue> shape(const OnnxNode& node) {
  const std::vector<int64_t> dims = onnx_dims(node.input(0));
  const auto rank = static_cast<int64_t>(dims.size());
  int64_t start = node.attr_int("start", 0);
  int64_t end = node.attr_int("end", rank);
  start = std::clamp<int64_t>(start < 0 ? start + rank : start, 0, rank);
  end = std::clamp<int64_t>(end < 0 ? end + rank : end, 0, rank);
  return one(
      known_ints(std::vector<int64_t>(dims.begin() + start, dims.begin() + std::max(start, end))));
}

std::vector<OnnxValue> size(const OnnxNode& node) {
  return one(known_ints({node.tensor(0).shape().num_elements()}), true);
}

/// Constant: one of its value attributes, known while building.
std::vector<OnnxValue> constant_node(const OnnxNode& node) {
  std::optional<TensorData> data = node.attr_tensor("value");
  if (node.has_attribute("value_float"))
    data = TensorData(std::vector<float>{node.attr_float("value_float", 0.0F)}, Shape{});
  if (auto floats = node.attr_floats("value_floats"))
    data = TensorData(*floats, Shape{static_cast<int64_t>(floats->size())});
  if (auto i = node.attr_int("value_int")) data = TensorData(std::vector<int64_t>{*i}, Shape{});
  if (auto ints = node.attr_ints("value_ints"))
    data = TensorData(*ints, Shape{static_cast<int64_t>(ints->size())});
  if (!data) node.fail("no value attribute ember reads (value, value_float(s), value_int(s))");
  const bool scalar = data->shape().rank() == 0;
  const TensorData ranked(std::vector<std::byte>(data->bytes().begin(), data->bytes().end()),
                          scalar ? Shape{1} : data->shape(), data->dtype());
  return one(constant(node, ranked), scalar);
}

std::vector<OnnxValue> constant_of_shape(const OnnxNode& node) {
  const std::vector<int64_t> dims = node.known_ints(0, "shape");
  element_count(node, dims);
  const TensorData value =
      node.attr_tensor("value").value_or(TensorData(std::vector<float>{0.0F}, Shape{1}));
  if (value.num_elements() != 1) node.fail("value holds ", value.num_elements(), " elements");
  const Scalar fill = kind_of(value.dtype()) == TensorKind::Float
                          ? Scalar(value.to_vector<double>()[0])
                          : Scalar(value.to_vector<int64_t>()[0]);
  const TensorHandle result = ops::full(
      dims.empty() ? Shape{1} : Shape(dims), fill,
      TensorCreationOptions(node.device()).with_dtype(value.dtype()), kind_of(value.dtype()));
  return one(result, dims.empty());
}

/// Range: start, start + delta, ... before limit, from known scalars.
std::vector<OnnxValue> range(const OnnxNode& node) {
  const double first = node.known_scalar(0, "start");
  const double limit = node.known_scalar(1, "limit");
  const double delta = node.known_scalar(2, "delta");
  if (delta == 0 || !std::isfinite(first) || !std::isfinite(limit) || !std::isfinite(delta))
    node.fail("start ", first, ", limit ", limit, ", delta ", delta);
  const double steps = std::max(std::ceil((limit - first) / delta), 0.0);
  if (steps > static_cast<double>(kMaxBuiltElements)) node.fail(steps, " elements is too many");
  std::vector<double> values(static_cast<std::size_t>(steps));
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = first + static_cast<double>(i) * delta;
  const TensorData data(values, Shape{static_cast<int64_t>(values.size())}, node.tensor(0).dtype());
  return one(constant(node, data));
}

std::vector<OnnxValue> optional_has_element(const OnnxNode& node) {
  const TensorData given(std::vector<uint8_t>{node.has(0) ? uint8_t{1} : uint8_t{0}}, Shape{1},
                         DType::Bool);
  return one(constant(node, given), true);
}

}  // namespace

void add_constant_importers(OnnxImporters& table) {
  table.insert({
      {"Shape", shape},
      {"Size", size},
      {"Constant", constant_node},
      {"ConstantOfShape", constant_of_shape},
      {"Range", range},
      {"OptionalHasElement", optional_has_element},
  });
}

}  // namespace ember::detail
