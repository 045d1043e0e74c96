// Importers of ONNX's window functions (HannWindow, HammingWindow, BlackmanWindow): cosines of
// the positions 0 .. size - 1 over size (periodic) or size - 1 (symmetric); and of
// MelWeightMatrix, the triangles of a mel filter bank, computed on the host from its known
// scalars as ONNX's reference computes them (in f64).
#include <cmath>
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

/// The most entries a mel weight matrix may have.
constexpr int64_t kMaxMelEntries = int64_t{1} << 24;

std::vector<OnnxValue> mel_weight_matrix(const OnnxNode& node) {
  const auto bins = static_cast<int64_t>(node.known_scalar(0, "num_mel_bins"));
  const auto length = static_cast<int64_t>(node.known_scalar(1, "dft_length"));
  const auto rate = static_cast<int64_t>(node.known_scalar(2, "sample_rate"));
  const double low = node.known_scalar(3, "lower_edge_hertz");
  const double high = node.known_scalar(4, "upper_edge_hertz");
  const int64_t spectrum = length / 2 + 1;
  if (bins < 1 || length < 1 || rate < 1 || spectrum * bins > kMaxMelEntries ||
      !std::isfinite(low) || !std::isfinite(high))
    node.fail("num_mel_bins ", bins, ", dft_length ", length, ", sample_rate ", rate, ", edges ",
              low, " and ", high);
  const auto mel = [](double hz) { return 2595 * std::log1p(hz / 700) / std::log(10.0); };
  // num_mel_bins + 2 edges, evenly spaced in mel (over bins + 2 steps, as the reference does).
  const double step = (mel(high) - mel(low)) / static_cast<double>(bins + 2);
  std::vector<int64_t> edge;
  for (int64_t i = 0; i < bins + 2; ++i) {
    const double hz =
        700 * std::expm1((static_cast<double>(i) * step + mel(low)) / 2595 * std::log(10.0));
    const double bin = std::floor(static_cast<double>(length + 1) * hz / static_cast<double>(rate));
    if (!(std::abs(bin) <= static_cast<double>(kMaxMelEntries)))
      node.fail("a filter edge at ", hz, " Hz falls outside the spectrum");
    edge.push_back(static_cast<int64_t>(bin));
  }
  std::vector<double> w(static_cast<std::size_t>(spectrum * bins), 0.0);
  const auto at = [&](int64_t j, int64_t i) -> double& {
    if (j < 0 || j >= spectrum) node.fail("a filter edge at bin ", j, " of ", spectrum);
    return w[static_cast<std::size_t>(j * bins + i)];
  };
  for (int64_t i = 0; i < bins; ++i) {
    const int64_t left = edge[static_cast<std::size_t>(i)],
                  centre = edge[static_cast<std::size_t>(i + 1)],
                  right = edge[static_cast<std::size_t>(i + 2)];
    if (centre == left) at(centre, i) = 1;
    for (int64_t j = left; centre != left && j <= centre; ++j)
      at(j, i) = static_cast<double>(j - left) / static_cast<double>(centre - left);
    for (int64_t j = centre; j < right; ++j)
      at(j, i) = static_cast<double>(right - j) / static_cast<double>(right - centre);
  }
  const std::optional<DType> dtype =
      dtype_of_onnx(static_cast<int32_t>(node.attr_int("output_datatype", 1)));
  if (!dtype) node.fail("output_datatype has no ember dtype");
  return one(ops::cast(constant(node, TensorData(std::move(w), Shape{spectrum, bins})), *dtype));
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
      {"MelWeightMatrix", mel_weight_matrix},
  });
}

}  // namespace ember::detail
