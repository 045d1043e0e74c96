// The importer of ONNX's Resize, as ember's interpolate (PyTorch's modes) where the two agree:
// nearest with asymmetric coordinates and floor (PyTorch's nearest), or half-pixel coordinates
// and an integer upscale (where every rounding gives floor); linear and cubic (a = -0.75) with
// half-pixel or align_corners coordinates, without antialiasing. Other combinations are refused,
// naming them.
#include <cmath>

#include "ember/interpolate.h"
#include "graph/onnx/onnx_import_util.h"

namespace ember::detail {
namespace {

/// The scales (or sizes) given for the node's axes, one per dim of x (N and C included).
template <typename T>
std::vector<T> per_axis(const OnnxNode& node, const std::vector<T>& given, int64_t rank, T keep,
                        std::string_view what) {
  std::vector<int64_t> axes(static_cast<std::size_t>(rank));
  for (int64_t d = 0; d < rank; ++d)
    axes[static_cast<std::size_t>(d)] = d;
  if (auto attribute = node.attr_ints("axes")) axes = *attribute;
  if (given.size() != axes.size())
    node.fail(what, " has ", given.size(), " entries for ", axes.size(), " axes");
  std::vector<T> full(static_cast<std::size_t>(rank), keep);
  for (std::size_t i = 0; i < axes.size(); ++i)
    full[static_cast<std::size_t>(onnx_axis(node, axes[i], rank))] = given[i];
  return full;
}

module::InterpolateMode linear_mode(const OnnxNode& node, std::size_t spatial, bool cubic) {
  if (cubic) {
    if (spatial != 2) node.fail("cubic Resize of ", spatial, " spatial dims (ember: 2)");
    return module::InterpolateMode::Bicubic;
  }
  if (spatial == 1) return module::InterpolateMode::Linear;
  if (spatial == 2) return module::InterpolateMode::Bilinear;
  if (spatial == 3) return module::InterpolateMode::Trilinear;
  node.fail("linear Resize of ", spatial, " spatial dims");
}

/// Whether every spatial output size is a whole multiple of the input's.
bool integer_upscale(const std::vector<int64_t>& in, const std::vector<int64_t>& out) {
  for (std::size_t d = 2; d < in.size(); ++d) {
    if (in[d] == 0 || out[d] < in[d] || out[d] % in[d] != 0) return false;
  }
  return true;
}

/// Picks ember's mode for the node's mode and coordinates, or refuses the combination. exact:
/// the output sizes are the input's times the scales exactly (ONNX maps align_corners'
/// coordinates with in * scale, PyTorch with the output size).
void choose_mode(const OnnxNode& node, module::InterpolateOptions& options,
                 const std::vector<int64_t>& in, const std::vector<int64_t>& out, bool exact) {
  const std::string mode = node.attr_string("mode", "nearest");
  const std::string coordinates = node.attr_string("coordinate_transformation_mode", "half_pixel");
  const std::string nearest = node.attr_string("nearest_mode", "round_prefer_floor");
  const bool half_pixel = coordinates == "half_pixel" || coordinates == "pytorch_half_pixel";
  if (node.attr_int("antialias", 0) != 0) node.fail("antialias is not imported");
  if (mode == "nearest") {
    const bool legacy = coordinates == "asymmetric" && nearest == "floor";
    const bool rounds_down =
        half_pixel && nearest.starts_with("round_prefer_") && integer_upscale(in, out);
    if (!legacy && !rounds_down) {
      node.fail("nearest Resize with ", coordinates, " coordinates and ", nearest,
                " is not imported (asymmetric with floor, or half_pixel at an integer upscale)");
    }
    return;
  }
  if (mode != "linear" && mode != "cubic") node.fail("mode '", mode, "'");
  if (!half_pixel && coordinates != "align_corners")
    node.fail(mode, " Resize with ", coordinates, " coordinates is not imported");
  if (coordinates == "align_corners" && !exact)
    node.fail("align_corners Resize with scales that do not give whole sizes is not imported");
  for (std::size_t d = 2; d < out.size() && coordinates == "pytorch_half_pixel"; ++d) {
    if (out[d] == 1) node.fail("pytorch_half_pixel Resize to size 1 (ONNX's 0, PyTorch's centre)");
  }
  if (mode == "cubic" && (node.attr_float("cubic_coeff_a", -0.75F) != -0.75F ||
                          node.attr_int("exclude_outside", 0) != 0))
    node.fail("cubic Resize other than a = -0.75 without exclude_outside is not imported");
  options.mode = linear_mode(node, in.size() - 2, mode == "cubic");
  options.align_corners = coordinates == "align_corners";
}

std::vector<OnnxValue> resize(const OnnxNode& node) {
  const TensorHandle& x = node.tensor(0);
  const std::vector<int64_t> in = onnx_dims(node.input(0));
  const auto rank = static_cast<int64_t>(in.size());
  if (rank < 3) node.fail("input must be [N, C, spatial...], got ", x.shape());
  if (node.attr_string("keep_aspect_ratio_policy", "stretch") != "stretch")
    node.fail("keep_aspect_ratio_policy other than stretch is not imported");
  module::InterpolateOptions options;
  std::vector<int64_t> out = in;
  bool exact = true;
  const bool has_sizes = node.has(3) && node.tensor(3).shape().num_elements() > 0;
  if (has_sizes) {
    out = per_axis<int64_t>(node, node.known_ints(3, "sizes"), rank, -1, "sizes");
    for (std::size_t d = 0; d < out.size(); ++d)
      out[d] = out[d] < 0 ? in[d] : out[d];
    options.size = ops::Dims(out.begin() + 2, out.end());
  } else {
    const std::vector<double> scales =
        per_axis<double>(node, node.known(2, "scales").to_vector<double>(), rank, 1.0, "scales");
    for (std::size_t d = 0; d < scales.size(); ++d) {
      if (!(scales[d] > 0) || scales[d] > 1e6) node.fail("scale ", scales[d]);
      const double size = static_cast<double>(in[d]) * scales[d];
      if (size >= 0x1p62) node.fail("scale ", scales[d], " of a dim of ", in[d], " overflows");
      out[d] = static_cast<int64_t>(std::floor(size));
      exact = exact && size == std::floor(size);
    }
    options.scale_factor = std::vector<double>(scales.begin() + 2, scales.end());
  }
  if (out[0] != in[0] || out[1] != in[1]) node.fail("resizing N or C is not imported");
  choose_mode(node, options, in, out, exact);
  return one(ops::interpolate(x, options));
}

}  // namespace

void add_resize_importers(OnnxImporters& table) {
  table.insert({{"Resize", resize}});
}

}  // namespace ember::detail
