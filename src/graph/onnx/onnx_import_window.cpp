// Importers of ONNX's window functions (HannWindow, HammingWindow, BlackmanWindow): cosines of
// the positions 0 .. size - 1 over size (periodic) or size - 1 (symmetric).
#include <numbers>

#include "graph/onnx/onnx_import_util.h"
#include "graph/onnx/onnx_model.h"

namespace ember::detail {
namespace {

/// The terms of a window: sum of coefficient[k] * cos(2 pi k n / N).
using Coefficients = std::vector<double>;

std::vector<OnnxValue> window(const OnnxNode& node, const Coefficients& coefficients) {
  const std::vector<int64_t> size = node.known_ints(0, "size");
  if (size.size() != 1 || size[0] < 1 || size[0] > (int64_t{1} << 24))
    node.fail("size must be one value in [1, 2^24]");
  const int64_t periods = node.attr_int("periodic", 1) != 0 ? size[0] : size[0] - 1;
  const std::optional<DType> dtype =
      dtype_of_onnx(static_cast<int32_t>(node.attr_int("output_datatype", 1)));
  if (!dtype) node.fail("output_datatype has no ember dtype");
  const TensorHandle n = ops::cast(
      ops::arange(0, size[0], 1, TensorCreationOptions(node.device()).with_dtype(DType::I64)),
      DType::F64);
  const TensorHandle angle =
      ops::mul_scalar(n, 2 * std::numbers::pi / static_cast<double>(periods));
  TensorHandle sum = ops::full_like(n, coefficients[0]);
  for (std::size_t k = 1; k < coefficients.size(); ++k) {
    const TensorHandle term = ops::cos(ops::mul_scalar(angle, static_cast<double>(k)));
    sum = ops::add(sum, ops::mul_scalar(term, coefficients[k]));
  }
  return one(ops::cast(sum, *dtype));
}

}  // namespace

void add_window_importers(OnnxImporters& table) {
  table.insert({
      {"HannWindow",
       [](const OnnxNode& node) {
         return window(node, {0.5, -0.5});
       }},
      {"HammingWindow",
       [](const OnnxNode& node) {
         return window(node, {25.0 / 46.0, -(1 - 25.0 / 46.0)});
       }},
      {"BlackmanWindow",
       [](const OnnxNode& node) {
         return window(node, {0.42, -0.5, 0.08});
       }},
  });
}

}  // namespace ember::detail
