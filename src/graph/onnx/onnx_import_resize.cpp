// The importer of ONNX's Resize, as ember's interpolate (PyTorch's modes) where the two agree:
// nearest with asymmetric coordinates and floor (PyTorch's nearest), or half-pixel coordinates
// and an integer upscale (where every rounding gives floor); linear and cubic (a = -0.75) with
// half-pixel or align_corners coordinates, without antialiasing. Every other combination is
// computed as ONNX's reference computes it, one axis at a time: each axis resampled by a matmul
// with a matrix of the taps' weights (onnx_resize_weights.cpp), in f64.
#include <algorithm>
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

/// The roi (starts, then ends, for the node's axes) for every dim: [0, 1] where not given.
std::vector<double> per_axis_pairs(const OnnxNode& node, const std::vector<double>& given,
                                   int64_t rank) {
  if (given.size() % 2 != 0) node.fail("roi has ", given.size(), " entries");
  const std::size_t n = given.size() / 2;
  const std::vector<double> starts = per_axis<double>(
      node, {given.begin(), given.begin() + static_cast<std::ptrdiff_t>(n)}, rank, 0.0, "roi");
  std::vector<double> all = starts;
  const std::vector<double> ends = per_axis<double>(
      node, {given.begin() + static_cast<std::ptrdiff_t>(n), given.end()}, rank, 1.0, "roi");
  all.insert(all.end(), ends.begin(), ends.end());
  return all;
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

/// Picks ember's mode for the node's mode and coordinates; false where interpolate computes
/// otherwise than ONNX. exact: the output sizes are the input's times the scales exactly (ONNX
/// maps align_corners' coordinates with in * scale, PyTorch with the output size).
bool choose_mode(const OnnxNode& node, module::InterpolateOptions& options,
                 const std::vector<int64_t>& in, const std::vector<int64_t>& out, bool exact) {
  const std::string mode = node.attr_string("mode", "nearest");
  const std::string coordinates = node.attr_string("coordinate_transformation_mode", "half_pixel");
  const std::string nearest = node.attr_string("nearest_mode", "round_prefer_floor");
  const bool half_pixel = coordinates == "half_pixel" || coordinates == "pytorch_half_pixel";
  if (node.attr_int("antialias", 0) != 0 || in.size() > 5) return false;
  if (node.attr_string("keep_aspect_ratio_policy", "stretch") != "stretch") return false;
  if (mode == "nearest") {
    const bool legacy = coordinates == "asymmetric" && nearest == "floor";
    const bool rounds_down =
        half_pixel && nearest.starts_with("round_prefer_") && integer_upscale(in, out);
    return legacy || rounds_down;
  }
  if (mode != "linear" && mode != "cubic") return false;
  if (!half_pixel && coordinates != "align_corners") return false;
  if (coordinates == "align_corners" && !exact) return false;
  for (std::size_t d = 2; d < out.size() && coordinates == "pytorch_half_pixel"; ++d) {
    if (out[d] == 1) return false;  // ONNX's 0, PyTorch's centre
  }
  if (mode == "cubic" && (node.attr_float("cubic_coeff_a", -0.75F) != -0.75F ||
                          node.attr_int("exclude_outside", 0) != 0 || in.size() != 4))
    return false;
  options.mode = linear_mode(node, in.size() - 2, mode == "cubic");
  options.align_corners = coordinates == "align_corners";
  return true;
}

/// The most entries a resampling matrix may have.
constexpr int64_t kMaxWeights = int64_t{1} << 24;

/// ONNX's Resize attributes, for the matrix path.
struct Rule {
  std::string mode, coordinates, nearest;
  double a;
  bool exclude_outside, antialias;
};

/// One axis to resample: in entries to out, at scale, the roi's start and end (fractions).
struct AxisPlan {
  int64_t in, out;
  double scale, roi_start, roi_end;
};

/// The source coordinate of output position y (the reference's _compute_x_ori); extrapolated
/// where tf_crop_and_resize maps it outside the input.
double source(const Rule& rule, const AxisPlan& axis, double y, bool& extrapolated) {
  const double in = static_cast<double>(axis.in), width = axis.scale * in;
  const auto out = static_cast<double>(axis.out);
  extrapolated = false;
  if (rule.coordinates == "align_corners") return width == 1 ? 0.0 : y * (in - 1) / (width - 1);
  if (rule.coordinates == "asymmetric") return y / axis.scale;
  if (rule.coordinates == "tf_crop_and_resize") {
    const double span = axis.roi_end - axis.roi_start;
    const double x = (width == 1 ? span * (in - 1) / 2 : y * span * (in - 1) / (width - 1)) +
                     axis.roi_start * (in - 1);
    extrapolated = x < 0 || x > in - 1;
    return x;
  }
  if (rule.coordinates == "pytorch_half_pixel")
    return width == 1 ? -0.5 : (y + 0.5) / axis.scale - 0.5;
  if (rule.coordinates == "half_pixel") return (y + 0.5) / axis.scale - 0.5;
  // half_pixel_symmetric: the centre of the input maps to the centre of the output.
  return in / 2 * (1 - out / width) + (y + 0.5) / axis.scale - 0.5;
}

/// Keys' cubic kernel at distance x.
double cubic(double x, double a) {
  x = std::abs(x);
  if (x <= 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return 0;
}

/// The weights of the taps around a coordinate whose distance past its left neighbour is ratio
/// (in (0, 1]), the reference's _*_coeffs.
std::vector<double> coefficients(const Rule& rule, double ratio, double scale) {
  if (rule.mode == "nearest") {
    if (ratio == 1) return {0, 1};
    const bool right = rule.nearest == "round_prefer_floor"  ? ratio > 0.5
                       : rule.nearest == "round_prefer_ceil" ? ratio >= 0.5
                                                             : rule.nearest == "ceil";
    return {right ? 0.0 : 1.0, right ? 1.0 : 0.0};
  }
  if (!rule.antialias) {
    if (rule.mode == "linear") return {1 - ratio, ratio};
    return {cubic(ratio + 1, rule.a), cubic(ratio, rule.a), cubic(1 - ratio, rule.a),
            cubic(2 - ratio, rule.a)};
  }
  // Antialiased (downsampling): the kernel stretched by 1 / scale, normalized.
  const double s = std::min(scale, 1.0);
  const bool linear = rule.mode == "linear";
  const auto start = static_cast<int64_t>(std::floor((linear ? -1 : -2) / s) + 1);
  const int64_t end = linear ? 1 - start + 1 : 2 - start;  // linear: 2 - 2 start taps
  std::vector<double> w;
  double sum = 0;
  for (int64_t i = start; i < end; ++i) {
    const double x = (static_cast<double>(i) - ratio) * s;
    w.push_back(linear ? std::clamp(1 - std::abs(x), 0.0, 1.0) : cubic(x, rule.a));
    sum += w.back();
  }
  for (double& v : w)
    v /= sum;
  return w;
}

/// The [in, out] matrix resampling one axis (the reference's _interpolate_1d_along_axis: the
/// taps nearest the source coordinate, edge-clamped), and which outputs are extrapolated.
std::pair<std::vector<double>, std::vector<bool>> resampling(const OnnxNode& node, const Rule& rule,
                                                             const AxisPlan& axis) {
  std::vector<double> matrix(static_cast<std::size_t>(axis.in * axis.out), 0.0);
  std::vector<bool> extrapolated(static_cast<std::size_t>(axis.out));
  for (int64_t y = 0; y < axis.out; ++y) {
    bool outside = false;
    const double x = source(rule, axis, static_cast<double>(y), outside);
    if (!std::isfinite(x) || std::abs(x) > 0x1p52) node.fail("a source coordinate of ", x);
    extrapolated[static_cast<std::size_t>(y)] = outside;
    const double base = std::floor(x);
    std::vector<double> w = coefficients(rule, x == base ? 1.0 : x - base, axis.scale);
    const auto n = static_cast<int64_t>(w.size());
    const int64_t pad = (n + 1) / 2;
    const double padded = x + static_cast<double>(pad);
    const double p = std::floor(padded), frac = padded - p;
    const int64_t offset = n % 2 == 0 ? (frac == 0 ? -(n / 2) : -(n / 2) + 1)
                                      : (frac <= 0.5 ? -((n - 1) / 2) : -((n - 1) / 2) + 1);
    const int64_t first = static_cast<int64_t>(p) + offset - pad;
    if (rule.exclude_outside) {
      double sum = 0;
      for (int64_t i = 0; i < n; ++i) {
        if (first + i < 0 || first + i >= axis.in) w[static_cast<std::size_t>(i)] = 0;
        sum += w[static_cast<std::size_t>(i)];
      }
      for (double& v : w)
        v /= sum == 0 ? 1.0 : sum;
    }
    for (int64_t i = 0; i < n; ++i) {
      const int64_t from = std::clamp<int64_t>(first + i, 0, axis.in - 1);
      matrix[static_cast<std::size_t>(from * axis.out + y)] += w[static_cast<std::size_t>(i)];
    }
  }
  return {std::move(matrix), std::move(extrapolated)};
}

/// x (f64) resampled along dim d by the matrix, extrapolated outputs set to the value.
TensorHandle resample_axis(const OnnxNode& node, const TensorHandle& x, int64_t d, const Rule& rule,
                           const AxisPlan& axis, double extrapolation) {
  if (axis.in * axis.out > kMaxWeights)
    node.fail("resampling ", axis.in, " entries to ", axis.out, " (a matrix of at most 2^24)");
  auto [matrix, extrapolated] = resampling(node, rule, axis);
  const auto rank = static_cast<int64_t>(x.rank());
  const TensorHandle weights =
      ops::unsqueeze(constant(node, TensorData(std::move(matrix), Shape{axis.in, axis.out})),
                     static_cast<std::size_t>(rank));
  const TensorHandle y =
      ops::swap_dims(ops::matmul(ops::swap_dims(x, d, rank - 1), weights), d, rank - 1);
  if (std::ranges::none_of(extrapolated, [](bool e) { return e; })) return y;
  std::vector<uint8_t> mask(extrapolated.begin(), extrapolated.end());
  const TensorHandle where =
      ops::reshape(constant(node, TensorData(std::move(mask), Shape{axis.out}, DType::Bool)),
                   positions_shape(rank, d, axis.out));
  return ops::mask_fill(y, where, extrapolation);
}

/// Resize as ONNX's reference computes it: each resized axis (in the order axes lists them) by
/// a matmul in f64, then the input's dtype.
TensorHandle resize_by_matrices(const OnnxNode& node, const std::vector<int64_t>& in,
                                const std::vector<int64_t>& out,
                                const std::vector<double>& scales) {
  const Rule rule{node.attr_string("mode", "nearest"),
                  node.attr_string("coordinate_transformation_mode", "half_pixel"),
                  node.attr_string("nearest_mode", "round_prefer_floor"),
                  node.attr_float("cubic_coeff_a", -0.75F),
                  node.attr_int("exclude_outside", 0) != 0,
                  node.attr_int("antialias", 0) != 0};
  if (rule.mode != "nearest" && rule.mode != "linear" && rule.mode != "cubic")
    node.fail("mode '", rule.mode, "'");
  const auto rank = static_cast<int64_t>(in.size());
  std::vector<double> roi(static_cast<std::size_t>(2 * rank), 0.0);
  std::fill(roi.begin() + rank, roi.end(), 1.0);
  if (rule.coordinates == "tf_crop_and_resize" && node.has(1))
    roi = per_axis_pairs(node, node.known(1, "roi").to_vector<double>(), rank);
  std::vector<int64_t> axes;
  for (int64_t d = 0; d < rank; ++d)
    axes.push_back(d);
  if (auto attribute = node.attr_ints("axes")) axes = *attribute;
  TensorHandle y = ops::cast(node.tensor(0), DType::F64);
  for (int64_t given : axes) {
    const auto d = static_cast<std::size_t>(onnx_axis(node, given, rank));
    const AxisPlan axis{in[d], out[d], scales[d], roi[d], roi[d + static_cast<std::size_t>(rank)]};
    const bool identity = std::abs(axis.scale - 1) < 1e-9 && axis.in == axis.out &&
                          axis.roi_start == 0 && axis.roi_end == 1;
    if (identity || axis.out == 0) continue;
    y = resample_axis(node, y, static_cast<int64_t>(d), rule, axis,
                      node.attr_float("extrapolation_value", 0.0F));
  }
  return ops::cast(y, node.tensor(0).dtype());
}

/// sizes scaled with keep_aspect_ratio_policy not_larger or not_smaller: one scale for the
/// given axes, the least or the largest of theirs, and sizes rounded half up from it.
void keep_aspect_ratio(const OnnxNode& node, const std::string& policy,
                       const std::vector<int64_t>& in, std::vector<int64_t>& out,
                       std::vector<double>& scales) {
  if (policy != "not_larger" && policy != "not_smaller")
    node.fail("keep_aspect_ratio_policy '", policy, "'");
  std::vector<int64_t> axes;
  for (std::size_t d = 0; d < in.size(); ++d)
    axes.push_back(static_cast<int64_t>(d));
  if (auto attribute = node.attr_ints("axes")) axes = *attribute;
  std::optional<double> scale;
  for (int64_t a : axes) {
    const double s =
        scales[static_cast<std::size_t>(onnx_axis(node, a, static_cast<int64_t>(in.size())))];
    scale = !scale ? s : policy == "not_larger" ? std::min(*scale, s) : std::max(*scale, s);
  }
  for (int64_t a : axes) {
    const auto d = static_cast<std::size_t>(onnx_axis(node, a, static_cast<int64_t>(in.size())));
    scales[d] = *scale;
    out[d] = static_cast<int64_t>(*scale * static_cast<double>(in[d]) + 0.5);
  }
}

std::vector<OnnxValue> resize(const OnnxNode& node) {
  const TensorHandle& x = node.tensor(0);
  const std::vector<int64_t> in = onnx_dims(node.input(0));
  const auto rank = static_cast<int64_t>(in.size());
  if (rank < 3) node.fail("input must be [N, C, spatial...], got ", x.shape());
  module::InterpolateOptions options;
  std::vector<int64_t> out = in;
  std::vector<double> scales(in.size(), 1.0);
  bool exact = true;
  const bool has_sizes = node.has(3) && node.tensor(3).shape().num_elements() > 0;
  if (has_sizes) {
    out = per_axis<int64_t>(node, node.known_ints(3, "sizes"), rank, -1, "sizes");
    for (std::size_t d = 0; d < out.size(); ++d) {
      out[d] = out[d] < 0 ? in[d] : out[d];
      if (in[d] == 0 || out[d] > kMaxWeights) node.fail("resizing ", in[d], " to ", out[d]);
      scales[d] = static_cast<double>(out[d]) / static_cast<double>(in[d]);
    }
    const std::string policy = node.attr_string("keep_aspect_ratio_policy", "stretch");
    if (policy != "stretch") keep_aspect_ratio(node, policy, in, out, scales);
    options.size = ops::Dims(out.begin() + 2, out.end());
  } else {
    scales =
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
  if (!choose_mode(node, options, in, out, exact))
    return {reshaped(resize_by_matrices(node, in, out, scales), out)};
  return one(ops::interpolate(x, options));
}

}  // namespace

void add_resize_importers(OnnxImporters& table) {
  table.insert({{"Resize", resize}});
}

}  // namespace ember::detail
