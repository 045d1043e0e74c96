// Importer of ONNX's RoiAlign, as its reference computes it, with ember's gather: each region's
// bins sampled on a grid of sampling_ratio^2 points (region and bins from the rois tensor, in
// the graph), each point bilinear over its four neighbours (points beyond -1 or the size read
// nothing, the rest clamped to the edge, per axis), then averaged over the bin (avg) or the
// largest weighted neighbour taken over the bin (max, the reference's rule).
#include "graph/onnx/onnx_import_util.h"

namespace ember::detail {
namespace {

/// One axis of the sample points: [R, K] coordinates made into neighbours and weights.
struct AxisSamples {
  TensorHandle outside;    ///< [R, K] bool
  TensorHandle low, high;  ///< [R, K] i64
  TensorHandle l, h;       ///< [R, K] weights of high and low
};

AxisSamples axis_samples(const TensorHandle& c, int64_t size) {
  const TensorHandle unknown = ops::is_nan(c);
  const TensorHandle outside = ops::bool_or(
      unknown,
      ops::bool_or(ops::lower_elem(c, -1.0), ops::greater_elem(c, static_cast<double>(size))));
  const TensorHandle v =
      ops::clamp(ops::mask_fill(c, unknown, 0.0), 0.0, static_cast<double>(size));
  TensorHandle low = ops::floor(v);
  const TensorHandle edge = ops::greater_equal_elem(low, static_cast<double>(size - 1));
  low = ops::mask_fill(low, edge, static_cast<double>(size - 1));
  const TensorHandle high = ops::mask_where(ops::add_scalar(low, 1.0), edge, low);
  const TensorHandle l = ops::sub(ops::mask_where(v, edge, low), low);
  return {outside, ops::cast(low, DType::I64), ops::cast(high, DType::I64), l,
          ops::rsub_scalar(l, 1.0)};
}

/// The sample coordinates of one axis: start + (bin + (i + 0.5) / grid) * bin_size for each of
/// the bins' grid points, [R, bins * grid].
TensorHandle sample_points(const OnnxNode& node, const TensorHandle& start, const TensorHandle& bin,
                           int64_t bins, int64_t grid) {
  std::vector<double> fractions;
  for (int64_t b = 0; b < bins; ++b) {
    for (int64_t i = 0; i < grid; ++i)
      fractions.push_back(static_cast<double>(b) +
                          (static_cast<double>(i) + 0.5) / static_cast<double>(grid));
  }
  const TensorHandle f = ops::cast(
      constant(node, TensorData(std::move(fractions), Shape{1, bins * grid})), start.dtype());
  return ops::add(start, ops::mul(f, bin));
}

std::vector<OnnxValue> roi_align(const OnnxNode& node) {
  const TensorHandle& x = node.tensor(0);
  const TensorHandle& rois = node.tensor(1);
  const std::vector<int64_t>& xd = x.shape().dims();
  if (x.rank() != 4 || rois.rank() != 2 || rois.shape().dims()[1] != 4)
    node.fail("X ", x.shape(), " and rois ", rois.shape(), " (X [N, C, H, W], rois [R, 4])");
  const int64_t r = rois.shape().dims()[0], c = xd[1], height = xd[2], width = xd[3];
  const int64_t oh = node.attr_int("output_height", 1), ow = node.attr_int("output_width", 1);
  const int64_t grid = node.attr_int("sampling_ratio", 0);
  if (oh < 1 || ow < 1 || oh > 4096 || ow > 4096) node.fail("an output of ", oh, " x ", ow);
  if (grid < 1 || grid > 64)
    node.fail("sampling_ratio ", grid, ": an adaptive grid (0) is not imported, 1 to 64 are");
  const std::string mode = node.attr_string("mode", "avg");
  if (mode != "avg" && mode != "max") node.fail("mode '", mode, "' (avg, max)");
  const bool half_pixel =
      node.attr_string("coordinate_transformation_mode", "half_pixel") == "half_pixel";
  const double scale = node.attr_float("spatial_scale", 1.0F);
  const TensorHandle box =
      ops::sub_scalar(ops::mul_scalar(ops::cast(rois, DType::F64), scale), half_pixel ? 0.5 : 0.0);
  const auto corner = [&](int64_t k) { return ops::narrow(box, 1, k, 1); };  // [R, 1]
  TensorHandle rw = ops::sub(corner(2), corner(0)), rh = ops::sub(corner(3), corner(1));
  if (!half_pixel) {
    rw = ops::clamp_min(rw, 1.0);
    rh = ops::clamp_min(rh, 1.0);
  }
  const AxisSamples ys = axis_samples(
      sample_points(node, corner(1), ops::div_scalar(rh, static_cast<double>(oh)), oh, grid),
      height);
  const AxisSamples xs = axis_samples(
      sample_points(node, corner(0), ops::div_scalar(rw, static_cast<double>(ow)), ow, grid),
      width);
  const int64_t ky = oh * grid, kx = ow * grid, points = ky * kx;
  const auto as_y = [&](const TensorHandle& t) { return ops::reshape(t, {r, ky, 1}); };
  const auto as_x = [&](const TensorHandle& t) { return ops::reshape(t, {r, 1, kx}); };
  const TensorHandle valid =
      ops::cast(ops::bool_not(ops::bool_or(as_y(ys.outside), as_x(xs.outside))), DType::F64);
  const TensorHandle images = ops::reshape(ops::select(x, 0, ops::cast(node.tensor(2), DType::I64)),
                                           {r, c, height * width});
  // The four neighbours (low/high row, low/high column): their weighted values [R, C, points].
  std::vector<TensorHandle> weighted;
  for (const auto& [yi, yw] : {std::pair{ys.low, ys.h}, std::pair{ys.high, ys.l}}) {
    for (const auto& [xi, xw] : {std::pair{xs.low, xs.h}, std::pair{xs.high, xs.l}}) {
      const TensorHandle position =
          ops::reshape(ops::add(ops::mul_scalar(as_y(yi), width), as_x(xi)), {r, 1, points});
      const TensorHandle weight =
          ops::reshape(ops::mul(ops::mul(as_y(yw), as_x(xw)), valid), {r, 1, points});
      const TensorHandle value =
          ops::cast(ops::gather(images, 2, ops::expand(position, {r, c, points})), DType::F64);
      weighted.push_back(ops::mul(value, weight));
    }
  }
  TensorHandle y;
  if (mode == "avg") {
    y = ops::add(ops::add(weighted[0], weighted[1]), ops::add(weighted[2], weighted[3]));
    y = ops::reshape(y, {r, c, oh, grid, ow, grid});
    y = ops::div_scalar(ops::sum_dim(ops::sum_dim(y, 5), 3), static_cast<double>(grid * grid));
  } else {
    y = ops::maximum(ops::maximum(weighted[0], weighted[1]),
                     ops::maximum(weighted[2], weighted[3]));
    y = ops::max_dim(ops::max_dim(ops::reshape(y, {r, c, oh, grid, ow, grid}), 5), 3);
  }
  return one(ops::cast(ops::reshape(y, {r, c, oh, ow}), x.dtype()));
}

}  // namespace

void add_roi_align_importers(OnnxImporters& table) {
  table.insert({{"RoiAlign", roi_align}});
}

}  // namespace ember::detail
