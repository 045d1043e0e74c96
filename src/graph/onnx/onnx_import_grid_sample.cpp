// Importer of ONNX's GridSample (PyTorch's grid_sample) over any number of spatial dims, with
// ember's gather: each output position's coordinates are denormalized, moved inside by the
// padding mode, and split per dim into taps (an index and a weight: 1 for nearest, 2 for linear,
// 4 for cubic); every combination of the dims' taps is one gather from the flattened input,
// weighted by the product of the taps' weights and summed. Out-of-range taps read zeros (zeros),
// the nearest edge (border) or their reflection (reflection), as ONNX's reference does.
// AffineGrid, which makes such grids, is a matmul of the positions' coordinates with theta.
// DeformConv samples its input the same way (bilinear, zeros outside) at each kernel position
// moved by its offset, and contracts the samples with the weight as a grouped matmul.
#include <string>

#include "graph/onnx/onnx_import_util.h"

namespace ember::detail {
namespace {

enum class Padding { Zeros, Border, Reflection };

/// What sampling along one spatial dim needs.
struct Axis {
  int64_t size;
  double low, high;  ///< the border: [-0.5, size - 0.5], or [0, size - 1] with align_corners
  Padding padding;
};

/// One tap of a dim: the index (float, integral) it reads and its weight (none: 1).
struct Tap {
  TensorHandle index;
  std::optional<TensorHandle> weight;
};

/// v reflected at low and high until inside, as the reference's _gs_reflect.
TensorHandle reflect(const TensorHandle& v, double low, double high) {
  const double range = high - low;
  if (range <= 0) return ops::full_like(v, low);  // one position: everything reflects onto it
  const auto fold = [&](const TensorHandle& distance, double near, double far) {
    const TensorHandle n = ops::floor(ops::div_scalar(distance, range));
    const TensorHandle r = ops::sub(distance, ops::mul_scalar(n, range));
    const TensorHandle odd = ops::equal_elem(ops::remainder_scalar(n, 2.0), 1.0);
    // Even: near side, moved in by r; odd: far side, moved back by r.
    const TensorHandle to_near = near < far ? ops::add_scalar(r, near) : ops::rsub_scalar(r, near);
    const TensorHandle to_far = near < far ? ops::rsub_scalar(r, far) : ops::add_scalar(r, far);
    return ops::where(odd, to_far, to_near);
  };
  const TensorHandle below = fold(ops::rsub_scalar(v, low), low, high);
  const TensorHandle above = fold(ops::sub_scalar(v, high), high, low);
  return ops::where(ops::lower_elem(v, low), below,
                    ops::where(ops::greater_elem(v, high), above, v));
}

/// A coordinate outside the border moved inside: clamped (border) or reflected (reflection).
TensorHandle inside(const TensorHandle& x, const Axis& axis) {
  const TensorHandle outside =
      ops::bool_or(ops::lower_elem(x, axis.low), ops::greater_elem(x, axis.high));
  switch (axis.padding) {
    case Padding::Zeros:
      return x;
    case Padding::Border:
      return ops::where(outside, ops::clamp(x, 0.0, static_cast<double>(axis.size - 1)), x);
    case Padding::Reflection:
      return reflect(x, axis.low, axis.high);
  }
  return x;
}

/// Toward zero, as a C cast to int.
TensorHandle truncated(const TensorHandle& x) {
  return ops::where(ops::lower_elem(x, 0.0), ops::ceil(x), ops::floor(x));
}

/// The in-range index (i64) a tap reads, and where padding is zeros, whether it is in range.
std::pair<TensorHandle, std::optional<TensorHandle>> fetch(const TensorHandle& index,
                                                           const Axis& axis) {
  const double last = static_cast<double>(axis.size - 1);
  TensorHandle i = index;
  if (axis.padding == Padding::Reflection) i = truncated(reflect(i, axis.low, axis.high));
  i = ops::mask_fill(i, ops::is_nan(i), -1.0);  // a NaN coordinate reads nothing (zeros) or 0
  std::optional<TensorHandle> valid;
  if (axis.padding == Padding::Zeros)
    valid = ops::bool_and(ops::greater_equal_elem(i, 0.0), ops::lower_equal_elem(i, last));
  return {ops::cast(ops::clamp(i, 0.0, last), DType::I64), valid};
}

/// Keys' cubic convolution weights (a = -0.75) of the taps at -1, 0, 1, 2 for the fraction t.
std::vector<TensorHandle> cubic_weights(const TensorHandle& t) {
  constexpr double a = -0.75;
  const auto outer = [&](const TensorHandle& x) {  // for |x| in [1, 2]
    return ops::sub_scalar(
        ops::mul(ops::add_scalar(ops::mul(ops::sub_scalar(ops::mul_scalar(x, a), 5 * a), x), 8 * a),
                 x),
        4 * a);
  };
  const auto inner = [&](const TensorHandle& x) {  // for |x| in [0, 1]
    return ops::add_scalar(
        ops::mul(ops::mul(ops::sub_scalar(ops::mul_scalar(x, a + 2), a + 3), x), x), 1.0);
  };
  return {outer(ops::add_scalar(t, 1.0)), inner(t), inner(ops::rsub_scalar(t, 1.0)),
          outer(ops::rsub_scalar(t, 2.0))};
}

std::vector<Tap> taps(const TensorHandle& x, const std::string& mode) {
  if (mode == "nearest") return {{truncated(x), std::nullopt}};
  const TensorHandle base = ops::floor(x);
  const TensorHandle t = ops::sub(x, base);
  if (mode == "linear") return {{base, ops::rsub_scalar(t, 1.0)}, {ops::add_scalar(base, 1.0), t}};
  const std::vector<TensorHandle> w = cubic_weights(t);
  std::vector<Tap> out;
  for (int k = 0; k < 4; ++k)
    out.push_back(
        {ops::add_scalar(base, static_cast<double>(k - 1)), w[static_cast<std::size_t>(k)]});
  return out;
}

Padding padding_of(const OnnxNode& node) {
  const std::string padding = node.attr_string("padding_mode", "zeros");
  if (padding == "zeros") return Padding::Zeros;
  if (padding == "border") return Padding::Border;
  if (padding == "reflection") return Padding::Reflection;
  node.fail("padding_mode '", padding, "' (zeros, border, reflection)");
}

std::string mode_of(const OnnxNode& node) {
  std::string mode = node.attr_string("mode", "linear");
  if (mode == "bilinear") mode = "linear";  // opset 16's names
  if (mode == "bicubic") mode = "cubic";
  if (mode != "nearest" && mode != "linear" && mode != "cubic")
    node.fail("mode '", mode, "' (nearest, linear, cubic)");
  return mode;
}

std::vector<OnnxValue> grid_sample(const OnnxNode& node) {
  const TensorHandle& x = node.tensor(0);
  const TensorHandle& grid = node.tensor(1);
  const std::vector<int64_t>& xd = x.shape().dims();
  const std::vector<int64_t>& gd = grid.shape().dims();
  const auto k = static_cast<int64_t>(xd.size()) - 2;
  if (k < 1 || gd.size() != xd.size() || gd[0] != xd[0] || gd.back() != k)
    node.fail("X ", x.shape(), " and grid ", grid.shape(), " (grid [N, ..., ", k, "])");
  const std::string mode = mode_of(node);
  const bool align = node.attr_int("align_corners", 0) != 0;
  const int64_t n = xd[0], c = xd[1];
  const int64_t positions = grid.shape().num_elements() / std::max<int64_t>(n * k, 1);
  int64_t flat_size = 1;
  for (int64_t d = 0; d < k; ++d)
    flat_size *= xd[static_cast<std::size_t>(d + 2)];
  // Per dim (the grid lists them last first): the taps, with their in-range indices.
  std::vector<std::vector<Tap>> dim_taps;
  std::vector<Axis> axes;
  for (int64_t d = 0; d < k; ++d) {
    const int64_t size = xd[static_cast<std::size_t>(d + 2)];
    const Axis axis{size, align ? 0.0 : -0.5,
                    align ? static_cast<double>(size - 1) : static_cast<double>(size) - 0.5,
                    padding_of(node)};
    const TensorHandle g =
        ops::reshape(ops::cast(ops::narrow(grid, k + 1, k - 1 - d, 1), DType::F32), {n, positions});
    const TensorHandle unit = ops::add_scalar(g, 1.0);
    TensorHandle coord =
        align ? ops::mul_scalar(unit, static_cast<double>(size - 1) / 2.0)
              : ops::div_scalar(ops::sub_scalar(ops::mul_scalar(unit, size), 1.0), 2.0);
    if (mode == "nearest") coord = ops::round(coord);  // half to even, as the reference
    dim_taps.push_back(taps(inside(coord, axis), mode));
    axes.push_back(axis);
  }
  const TensorHandle flat = ops::reshape(x, {n, c, flat_size});
  std::optional<TensorHandle> sum;
  // Every combination of the dims' taps: choice[d] is dim d's tap.
  std::vector<std::size_t> choice(static_cast<std::size_t>(k), 0);
  while (true) {
    std::optional<TensorHandle> index, weight, valid;
    for (std::size_t d = 0; d < choice.size(); ++d) {
      const Tap& tap = dim_taps[d][choice[d]];
      auto [i, ok] = fetch(tap.index, axes[d]);
      index = index ? ops::add(ops::mul_scalar(*index, axes[d].size), i) : i;
      if (tap.weight) weight = weight ? ops::mul(*weight, *tap.weight) : *tap.weight;
      if (ok) valid = valid ? ops::bool_and(*valid, *ok) : *ok;
    }
    TensorHandle value = ops::gather(
        flat, 2, ops::expand(ops::reshape(*index, {n, 1, positions}), {n, c, positions}));
    if (valid)
      value = ops::mask_fill(value, ops::bool_not(ops::reshape(*valid, {n, 1, positions})), 0.0);
    if (weight)
      value = ops::mul(value, ops::cast(ops::reshape(*weight, {n, 1, positions}), x.dtype()));
    sum = sum ? ops::add(*sum, value) : value;
    std::size_t d = choice.size();
    while (d-- > 0 && ++choice[d] == dim_taps[d].size())
      choice[d] = 0;
    if (d == static_cast<std::size_t>(-1)) break;
  }
  std::vector<int64_t> out{n, c};
  out.insert(out.end(), gd.begin() + 1, gd.end() - 1);
  return one(ops::reshape(*sum, out));
}

/// The normalized coordinate in [-1, 1] of position i of n: the centres of n cells, or n
/// points from -1 to 1 with align_corners.
double normalized(int64_t i, int64_t n, bool align) {
  if (align)
    return n == 1 ? -1.0 : -1.0 + 2.0 * static_cast<double>(i) / static_cast<double>(n - 1);
  return -1.0 + (2.0 * static_cast<double>(i) + 1.0) / static_cast<double>(n);
}

/// AffineGrid: theta [N, k, k + 1] applied to each position's homogeneous coordinates (x first,
/// as GridSample reads them, then 1), for the spatial sizes of size [N, C, *spatial].
std::vector<OnnxValue> affine_grid(const OnnxNode& node) {
  const TensorHandle& theta = node.tensor(0);
  const std::vector<int64_t> size = node.known_ints(1, "size");
  const auto k = static_cast<int64_t>(size.size()) - 2;
  const std::vector<int64_t>& td = theta.shape().dims();
  if (k < 2 || k > 3 || td.size() != 3 || td[1] != k || td[2] != k + 1)
    node.fail("theta ", theta.shape(), " for size of ", size.size(), " values (2-D or 3-D)");
  const std::vector<int64_t> spatial(size.begin() + 2, size.end());
  int64_t positions = 1;
  for (int64_t n : spatial) {
    if (n < 1 || n > (int64_t{1} << 24)) node.fail("a spatial size of ", n);
    positions *= n;
  }
  if (positions > (int64_t{1} << 24)) node.fail(positions, " positions (at most 2^24)");
  const bool align = node.attr_int("align_corners", 0) != 0;
  std::vector<double> base;
  base.reserve(static_cast<std::size_t>(positions * (k + 1)));
  std::vector<int64_t> at(static_cast<std::size_t>(k), 0);  // the position, first dim first
  for (int64_t p = 0; p < positions; ++p) {
    for (int64_t d = k - 1; d >= 0; --d)
      base.push_back(
          normalized(at[static_cast<std::size_t>(d)], spatial[static_cast<std::size_t>(d)], align));
    base.push_back(1.0);
    for (int64_t d = k - 1;
         d >= 0 && ++at[static_cast<std::size_t>(d)] == spatial[static_cast<std::size_t>(d)]; --d)
      at[static_cast<std::size_t>(d)] = 0;
  }
  const TensorHandle coords = ops::cast(
      constant(node, TensorData(std::move(base), Shape{1, positions, k + 1})), theta.dtype());
  const TensorHandle grid = ops::matmul(coords, ops::swap_dims(theta, 1, 2));  // [N, P, k]
  std::vector<int64_t> out{td[0]};
  out.insert(out.end(), spatial.begin(), spatial.end());
  out.push_back(k);
  return one(ops::reshape(grid, out));
}

/// A DeformConv input's dims ([N, C, H, W]) and the op's geometry.
struct Deform {
  int64_t n, c, h, w, kh, kw, oh, ow, offset_groups;
};

/// The sample coordinates of one axis, [N, G, kh, kw, oh, ow]: each output position's window
/// origin (stride s, from -pad), plus its kernel position (dilation d), plus the offset.
TensorHandle deform_coordinates(const OnnxNode& node, const TensorHandle& offset, const Deform& g,
                                bool rows, int64_t stride, int64_t dilation, int64_t pad) {
  const int64_t k = rows ? g.kh : g.kw, out = rows ? g.oh : g.ow;
  std::vector<double> base;
  for (int64_t a = 0; a < k; ++a) {
    for (int64_t i = 0; i < out; ++i)
      base.push_back(static_cast<double>(i * stride - pad + a * dilation));
  }
  const std::vector<int64_t> dims =
      rows ? std::vector<int64_t>{1, 1, k, 1, out, 1} : std::vector<int64_t>{1, 1, 1, k, 1, out};
  const TensorHandle origin =
      ops::reshape(constant(node, TensorData(std::move(base), Shape{k * out})), dims);
  const TensorHandle shift = ops::squeeze(ops::narrow(offset, 4, rows ? 0 : 1, 1), 4);
  return ops::add(ops::cast(shift, DType::F64), origin);
}

/// DeformConv (2-D): the input sampled bilinearly (zeros outside) at every kernel position of
/// every output position, moved by its offset and scaled by the mask, then contracted with the
/// weight per group, plus the bias.
std::vector<OnnxValue> deform_conv(const OnnxNode& node) {
  const TensorHandle& x = node.tensor(0);
  const TensorHandle& weight = node.tensor(1);
  const TensorHandle& offset = node.tensor(2);
  if (x.rank() != 4 || weight.rank() != 4 || offset.rank() != 4)
    node.fail("X ", x.shape(), ", W ", weight.shape(), " and offset ", offset.shape(),
              " must be 2-D convolution shapes");
  const std::vector<int64_t>& xd = x.shape().dims();
  const std::vector<int64_t>& wd = weight.shape().dims();
  const Deform g{xd[0],
                 xd[1],
                 xd[2],
                 xd[3],
                 wd[2],
                 wd[3],
                 offset.shape().dims()[2],
                 offset.shape().dims()[3],
                 node.attr_int("offset_group", 1)};
  const int64_t groups = node.attr_int("group", 1);
  if (groups < 1 || g.offset_groups < 1 || g.c % groups != 0 || g.c % g.offset_groups != 0 ||
      wd[1] * groups != g.c || wd[0] % groups != 0 ||
      offset.shape().dims()[1] != g.offset_groups * g.kh * g.kw * 2)
    node.fail("X ", x.shape(), ", W ", weight.shape(), " and offset ", offset.shape(),
              " do not fit group ", groups, " and offset_group ", g.offset_groups);
  const std::vector<int64_t> strides =
      node.attr_ints("strides").value_or(std::vector<int64_t>{1, 1});
  const std::vector<int64_t> dilations =
      node.attr_ints("dilations").value_or(std::vector<int64_t>{1, 1});
  const std::vector<int64_t> pads =
      node.attr_ints("pads").value_or(std::vector<int64_t>{0, 0, 0, 0});
  if (strides.size() != 2 || dilations.size() != 2 || pads.size() != 4)
    node.fail("strides, dilations and pads must hold 2, 2 and 4 values");
  const TensorHandle shifts =
      ops::reshape(offset, {g.n, g.offset_groups, g.kh, g.kw, 2, g.oh, g.ow});
  const int64_t points = g.kh * g.kw * g.oh * g.ow, per_group = g.c / g.offset_groups;
  const Axis rows{g.h, 0, static_cast<double>(g.h - 1), Padding::Zeros};
  const Axis cols{g.w, 0, static_cast<double>(g.w - 1), Padding::Zeros};
  const std::vector<Tap> ys =
      taps(deform_coordinates(node, shifts, g, true, strides[0], dilations[0], pads[0]), "linear");
  const std::vector<Tap> xs =
      taps(deform_coordinates(node, shifts, g, false, strides[1], dilations[1], pads[1]), "linear");
  const TensorHandle images =
      ops::reshape(ops::cast(x, DType::F64), {g.n, g.offset_groups, per_group, g.h * g.w});
  const std::vector<int64_t> spread{g.n, g.offset_groups, per_group, points};
  std::optional<TensorHandle> samples;
  for (const Tap& ty : ys) {
    for (const Tap& tx : xs) {
      auto [iy, oky] = fetch(ty.index, rows);
      auto [ix, okx] = fetch(tx.index, cols);
      const TensorHandle index = ops::add(ops::mul_scalar(iy, g.w), ix);
      const TensorHandle w = ops::mask_fill(ops::mul(*ty.weight, *tx.weight),
                                            ops::bool_not(ops::bool_and(*oky, *okx)), 0.0);
      const auto flat = [&](const TensorHandle& t) {
        return ops::reshape(t, {g.n, g.offset_groups, 1, points});
      };
      const TensorHandle value =
          ops::mul(ops::gather(images, 3, ops::expand(flat(index), spread)), flat(w));
      samples = samples ? ops::add(*samples, value) : value;
    }
  }
  if (node.has(4)) {
    samples = ops::mul(*samples, ops::reshape(ops::cast(node.tensor(4), DType::F64),
                                              {g.n, g.offset_groups, 1, points}));
  }
  // [N, C * kh * kw, oh * ow] in groups, against W [groups, oc / groups, C / groups * kh * kw].
  const int64_t window = g.kh * g.kw, length = g.oh * g.ow;
  const TensorHandle columns =
      ops::reshape(*samples, {g.n, groups, (g.c / groups) * window, length});
  const TensorHandle kernels = ops::reshape(ops::cast(weight, DType::F64),
                                            {1, groups, wd[0] / groups, (g.c / groups) * window});
  TensorHandle y = ops::reshape(ops::matmul(kernels, columns), {g.n, wd[0], g.oh, g.ow});
  if (node.has(3))
    y = ops::add(y, ops::reshape(ops::cast(node.tensor(3), DType::F64), {1, wd[0], 1, 1}));
  return one(ops::cast(y, x.dtype()));
}

}  // namespace

void add_grid_sample_importers(OnnxImporters& table) {
  table.insert({
      {"GridSample", grid_sample},
      {"AffineGrid", affine_grid},
      {"DeformConv", deform_conv},
  });
}

}  // namespace ember::detail
