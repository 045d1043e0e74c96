// Importers of ONNX's convolutions and pooling: Conv, ConvTranspose, MaxPool, AveragePool,
// GlobalAveragePool, GlobalMaxPool. ONNX's pads may differ on the two sides of a dim (and
// auto_pad computes them); ember's ops pad both sides alike, so uneven pads are applied to the
// input (or cut from a transposed convolution's output) around the op.
#include <algorithm>
#include <limits>

#include "ember/convolution.h"
#include "ember/pooling.h"
#include "graph/onnx/onnx_import_util.h"

namespace ember::detail {
namespace {

/// A node's window attributes, one entry per spatial dim, pads resolved from auto_pad.
struct Window {
  std::vector<int64_t> kernel;
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  std::vector<int64_t> begin;  ///< pads before each spatial dim
  std::vector<int64_t> end;    ///< pads after

  bool symmetric() const { return begin == end; }
};

/// The largest stride, dilation, pad or kernel size read: larger ones would overflow the window
/// arithmetic, and no input is that large.
constexpr int64_t kMaxWindowValue = int64_t{1} << 31;

void check_window_value(const OnnxNode& node, std::string_view name, int64_t value, int64_t least) {
  if (value < least || value > kMaxWindowValue) node.fail(name, " holds ", value);
}

/// attribute name with one entry per spatial dim, fallback for each when absent.
std::vector<int64_t> per_dim(const OnnxNode& node, std::string_view name, std::size_t spatial,
                             int64_t fallback) {
  const std::vector<int64_t> values =
      node.attr_ints(name).value_or(std::vector<int64_t>(spatial, fallback));
  if (values.size() != spatial)
    node.fail(name, " has ", values.size(), " entries for ", spatial, " spatial dims");
  for (int64_t value : values)
    check_window_value(node, name, value, name == "pads" ? 0 : 1);
  return values;
}

/// The window of a convolution or pooling node over input dims in (spatial dims only).
Window window_of(const OnnxNode& node, const std::vector<int64_t>& in,
                 const std::vector<int64_t>& kernel) {
  const std::size_t spatial = in.size();
  Window w{
      kernel, per_dim(node, "strides", spatial, 1), per_dim(node, "dilations", spatial, 1), {}, {}};
  const std::string auto_pad = node.attr_string("auto_pad", "NOTSET");
  if (auto_pad == "NOTSET") {
    const std::vector<int64_t> pads =
        node.attr_ints("pads").value_or(std::vector<int64_t>(2 * spatial, 0));
    if (pads.size() != 2 * spatial)
      node.fail("pads has ", pads.size(), " entries for ", spatial, " spatial dims");
    for (int64_t pad : pads)
      check_window_value(node, "pads", pad, 0);
    w.begin.assign(pads.begin(), pads.begin() + static_cast<std::ptrdiff_t>(spatial));
    w.end.assign(pads.begin() + static_cast<std::ptrdiff_t>(spatial), pads.end());
  } else if (auto_pad == "VALID") {
    w.begin.assign(spatial, 0);
    w.end.assign(spatial, 0);
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    for (std::size_t d = 0; d < spatial; ++d) {
      const int64_t out = (in[d] + w.strides[d] - 1) / w.strides[d];
      const int64_t span = (w.kernel[d] - 1) * w.dilations[d] + 1;
      const int64_t total = std::max<int64_t>((out - 1) * w.strides[d] + span - in[d], 0);
      const int64_t small = total / 2;
      w.begin.push_back(auto_pad == "SAME_UPPER" ? small : total - small);
      w.end.push_back(total - w.begin.back());
    }
  } else {
    node.fail("auto_pad '", auto_pad, "' is not one ONNX defines");
  }
  return w;
}

std::vector<int64_t> spatial_dims(const OnnxNode& node, const TensorHandle& x) {
  if (x.rank() < 3 || node.input(0).scalar)
    node.fail("input must be [N, C, spatial...], got ", x.shape());
  std::vector<int64_t> in(x.shape().dims().begin() + 2, x.shape().dims().end());
  for (int64_t dim : in)
    check_window_value(node, "a spatial dim", dim, 0);
  return in;
}

/// x padded by the window's pads with value (ember's op then pads nothing).
TensorHandle pad_input(const OnnxNode& node, const TensorHandle& x, const Window& w,
                       const Scalar& value) {
  TensorHandle padded = x;
  for (std::size_t d = 0; d < w.begin.size(); ++d)
    padded = pad_axis(node, padded, static_cast<int64_t>(d + 2), w.begin[d], w.end[d], value);
  return padded;
}

std::vector<int64_t> kernel_of(const OnnxNode& node, const TensorHandle& weight,
                               std::size_t spatial) {
  if (weight.rank() != spatial + 2)
    node.fail("W ", weight.shape(), " does not fit ", spatial, " spatial dims");
  std::vector<int64_t> kernel(weight.shape().dims().begin() + 2, weight.shape().dims().end());
  if (auto given = node.attr_ints("kernel_shape")) {
    if (*given != kernel)
      node.fail("kernel_shape ", Shape(*given), " differs from W's ", Shape(kernel));
  }
  return kernel;
}

std::vector<OnnxValue> conv(const OnnxNode& node) {
  TensorHandle x = node.tensor(0);
  const std::vector<int64_t> in = spatial_dims(node, x);
  const Window w = window_of(node, in, kernel_of(node, node.tensor(1), in.size()));
  module::ConvOptions options{w.strides, w.begin, w.dilations, node.attr_int("group", 1)};
  if (!w.symmetric()) {
    x = pad_input(node, x, w, 0.0);
    options.padding.assign(in.size(), 0);
  }
  const ops::OptionalHandle bias = node.has(2) ? ops::OptionalHandle(node.tensor(2)) : std::nullopt;
  return one(ops::conv(x, node.tensor(1), bias, options));
}

/// CausalConvWithState: a depthwise 1-D convolution over the input with the past state (or
/// k - 1 zeros) before it, optionally followed by SiLU (computed in f32, as ONNX's reference);
/// the new state is the last k - 1 positions of what was convolved.
std::vector<OnnxValue> causal_conv_with_state(const OnnxNode& node) {
  const TensorHandle& x = node.tensor(0);
  const TensorHandle& weight = node.tensor(1);
  const std::string activation = node.attr_string("activation", "none");
  if (activation != "none" && activation != "silu" && activation != "swish")
    node.fail("activation '", activation, "' (none, silu, swish)");
  if (x.rank() != 3 || weight.rank() != 3)
    node.fail("input ", x.shape(), " and weight ", weight.shape(), " must be [B, C, L], [C, 1, k]");
  const int64_t batch = x.shape().dims()[0], channels = x.shape().dims()[1];
  const int64_t k = weight.shape().dims()[2];
  if (k < 1) node.fail("a kernel of ", k, " positions");
  TensorHandle padded = x;
  if (k > 1) {
    const TensorHandle past =
        node.has(3) ? node.tensor(3)
                    : ops::zeros(Shape{batch, channels, k - 1},
                                 TensorCreationOptions(node.device()).with_dtype(x.dtype()),
                                 TensorKind::Float);
    padded = ops::cat({past, x}, 2);
  }
  const ops::OptionalHandle bias = node.has(2) ? ops::OptionalHandle(node.tensor(2)) : std::nullopt;
  TensorHandle y = ops::conv(padded, weight, bias, module::ConvOptions{{1}, {0}, {1}, channels});
  if (activation != "none") y = ops::cast(ops::silu(ops::cast(y, DType::F32)), x.dtype());
  const int64_t length = padded.shape().dims()[2];
  return {{y, false}, {ops::narrow(padded, 2, length - (k - 1), k - 1), false}};
}

/// ConvTranspose: the full transposed convolution (no padding), then the pads cut from its
/// output; output_shape, when given, sets the pads (split as auto_pad says).
std::vector<OnnxValue> conv_transpose(const OnnxNode& node) {
  const TensorHandle& x = node.tensor(0);
  const std::vector<int64_t> in = spatial_dims(node, x);
  const std::size_t spatial = in.size();
  Window w = window_of(node, in, kernel_of(node, node.tensor(1), spatial));
  const std::vector<int64_t> extra =
      node.attr_ints("output_padding").value_or(std::vector<int64_t>(spatial, 0));
  if (extra.size() != spatial) node.fail("output_padding has ", extra.size(), " entries");
  for (int64_t value : extra)
    check_window_value(node, "output_padding", value, 0);
  const std::string auto_pad = node.attr_string("auto_pad", "NOTSET");
  for (std::size_t d = 0; d < spatial; ++d) {
    const int64_t full =
        (in[d] - 1) * w.strides[d] + (w.kernel[d] - 1) * w.dilations[d] + 1 + extra[d];
    std::optional<int64_t> target;
    if (auto shape = node.attr_ints("output_shape")) {
      if (shape->size() != spatial) node.fail("output_shape has ", shape->size(), " entries");
      target = (*shape)[d];
      check_window_value(node, "output_shape", *target, 0);
    } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      target = in[d] * w.strides[d];
    }
    if (!target) continue;
    const int64_t total = full - *target;  // negative: the output grows (pads of zeros)
    const int64_t half = total >= 0 ? total / 2 : -((1 - total) / 2);  // floor, as ONNX's
    w.begin[d] = auto_pad == "SAME_UPPER" ? half : total - half;
    w.end[d] = total - w.begin[d];
  }
  module::ConvTransposeOptions options{w.strides, std::vector<int64_t>(spatial, 0), extra,
                                       w.dilations, node.attr_int("group", 1)};
  TensorHandle y = ops::conv_transpose(x, node.tensor(1), std::nullopt, options);
  for (std::size_t d = 0; d < spatial; ++d)
    y = pad_axis(node, y, static_cast<int64_t>(d + 2), -w.begin[d], -w.end[d], 0.0);
  if (!node.has(2)) return one(y);
  // The bias after the cut: it reaches every output, those grown by output_shape too.
  std::vector<int64_t> bias_dims(spatial + 1, 1);
  bias_dims[0] = node.tensor(2).shape().num_elements();
  return one(ops::add(y, ops::reshape(node.tensor(2), bias_dims)));
}

/// Whether ember's pooling pads the window itself: pads even on both sides, at most half the
/// kernel (PyTorch's rule, which ember's ops keep).
bool pads_in_op(const Window& w) {
  for (std::size_t d = 0; d < w.begin.size(); ++d) {
    if (w.begin[d] != w.end[d] || w.begin[d] > w.kernel[d] / 2) return false;
  }
  return true;
}

std::vector<int64_t> pool_kernel(const OnnxNode& node) {
  const std::optional<std::vector<int64_t>> kernel = node.attr_ints("kernel_shape");
  if (!kernel) node.fail("attribute 'kernel_shape' is required");
  for (int64_t k : *kernel)
    check_window_value(node, "kernel_shape", k, 1);
  return *kernel;
}

/// Row-major positions in a plane of dims `in` renumbered column-major (MaxPool's storage_order
/// 1): the coordinates taken apart, then put together first dim fastest.
TensorHandle column_major(const TensorHandle& indices, const std::vector<int64_t>& in) {
  TensorHandle rest = indices;
  TensorHandle out = ops::full_like(indices, 0);
  int64_t stride = 1;  // of dim d in the column-major numbering
  std::vector<TensorHandle> coordinate(in.size());
  for (std::size_t d = in.size(); d-- > 0;) {  // the last dim varies fastest in ember's
    coordinate[d] = ops::remainder_scalar(rest, in[d]);
    rest = ops::div_scalar(rest, in[d]);
  }
  for (std::size_t d = 0; d < in.size(); ++d) {
    out = ops::add(out, ops::mul_scalar(coordinate[d], stride));
    stride *= in[d];
  }
  return out;
}

std::vector<OnnxValue> max_pool(const OnnxNode& node) {
  TensorHandle x = node.tensor(0);
  const std::vector<int64_t> in = spatial_dims(node, x);
  const Window w = window_of(node, in, pool_kernel(node));
  if (w.kernel.size() != in.size()) node.fail("kernel_shape does not fit the input's spatial dims");
  module::MaxPoolOptions options{w.kernel, w.strides, w.begin, w.dilations,
                                 node.attr_int("ceil_mode", 0) != 0};
  const bool in_op = pads_in_op(w);
  if (!in_op) {
    x = pad_input(node, x, w, -std::numeric_limits<double>::infinity());
    options.padding.assign(in.size(), 0);
  }
  if (node.proto().output_size() < 2 || node.proto().output(1).empty())
    return one(ops::max_pool(x, options));
  if (!in_op) node.fail("the Indices output is imported for even pads only");
  auto [values, indices] = ops::max_pool_with_indices(x, options);
  if (node.attr_int("storage_order", 0) != 0) indices = column_major(indices, in);
  // ember's indices count within each (sample, channel) plane; ONNX's over the whole tensor.
  const auto& dims = x.shape().dims();
  int64_t plane = 1;
  for (int64_t dim : in)
    plane *= dim;
  std::vector<int64_t> offset_dims(dims.size(), 1);
  offset_dims[0] = dims[0];
  offset_dims[1] = dims[1];
  const TensorHandle offsets = ops::reshape(
      ops::mul_scalar(ops::arange(0, dims[0] * dims[1], 1,
                                  TensorCreationOptions(node.device()).with_dtype(indices.dtype())),
                      plane),
      offset_dims);
  return {{values, false}, {ops::add(indices, offsets), false}};
}

/// Whether any dilation is above 1.
bool dilated(const Window& w) {
  return std::ranges::any_of(w.dilations, [](int64_t d) { return d != 1; });
}

/// A [1, 1, *size] tensor of mask[d][i] multiplied over the dims.
TensorHandle outer_mask(const OnnxNode& node, const std::vector<std::vector<double>>& masks) {
  TensorHandle product;
  for (std::size_t d = 0; d < masks.size(); ++d) {
    const auto n = static_cast<int64_t>(masks[d].size());
    const TensorHandle m = ops::reshape(
        constant(node, TensorData(masks[d], Shape{n})),
        positions_shape(static_cast<int64_t>(masks.size()) + 2, static_cast<int64_t>(d) + 2, n));
    product = d == 0 ? m : ops::mul(product, m);
  }
  return product;
}

/// A dilated AveragePool or LpPool as ONNX's reference computes it: ceil_mode's extra pad split
/// over both sides, a window position counted only before the end of the input and its pads,
/// the divisor the positions counted (count_include_pad) or those of them in the input. Sums
/// are a depthwise convolution with ones, divisors one over masks. p: LpPool's, 0 for average.
TensorHandle dilated_pool(const OnnxNode& node, const TensorHandle& x, const Window& w, int64_t p) {
  const std::size_t k = w.kernel.size();
  const bool ceil_mode = node.attr_int("ceil_mode", 0) != 0;
  std::vector<std::vector<double>> counted(k), inside(k);
  TensorHandle padded = p == 0 ? x : ops::powi_scalar(ops::abs(x), p);
  for (std::size_t d = 0; d < k; ++d) {
    const int64_t in = x.shape().dims()[d + 2];
    const int64_t span = (w.kernel[d] - 1) * w.dilations[d] + 1;
    const int64_t room = in + w.begin[d] + w.end[d] - span;
    if (room < 0) node.fail("the window spans ", span, " positions of ", in, " and the pads");
    int64_t out = (ceil_mode ? (room + w.strides[d] - 1) : room) / w.strides[d] + 1;
    if (ceil_mode && (out - 1) * w.strides[d] >= in + w.begin[d]) --out;
    const int64_t extra =
        std::max<int64_t>((out - 1) * w.strides[d] + span - in - w.begin[d] - w.end[d], 0);
    const int64_t begin = w.begin[d] + extra / 2, end = w.end[d] + extra - extra / 2;
    padded = pad_axis(node, padded, static_cast<int64_t>(d) + 2, begin, end, 0.0);
    const int64_t length = in + begin + end;
    for (int64_t i = 0; i < length; ++i) {
      counted[d].push_back(i < in + w.begin[d] + w.end[d] ? 1.0 : 0.0);
      inside[d].push_back(counted[d].back() * (i >= begin && i < begin + in ? 1.0 : 0.0));
    }
  }
  const int64_t channels = x.shape().dims()[1];
  const TensorHandle counted_mask = ops::cast(outer_mask(node, counted), x.dtype());
  std::vector<int64_t> kernel_dims{channels, 1};
  kernel_dims.insert(kernel_dims.end(), w.kernel.begin(), w.kernel.end());
  const TensorHandle ones =
      ops::ones(Shape(kernel_dims), TensorCreationOptions(node.device()).with_dtype(x.dtype()),
                TensorKind::Float);
  const std::vector<int64_t> zeros(k, 0);
  const auto window_sum = [&](const TensorHandle& v, const TensorHandle& weight, int64_t groups) {
    return ops::conv(v, weight, std::nullopt,
                     module::ConvOptions{w.strides, zeros, w.dilations, groups});
  };
  const TensorHandle sums = window_sum(ops::mul(padded, counted_mask), ones, channels);
  if (p != 0) return ops::powf_scalar(sums, 1.0 / static_cast<double>(p));
  const bool include_pad = node.attr_int("count_include_pad", 0) != 0;
  const TensorHandle divisor_mask =
      include_pad ? counted_mask : ops::cast(outer_mask(node, inside), x.dtype());
  return ops::div(sums, window_sum(divisor_mask, ops::narrow(ones, 0, 0, 1), 1));
}

/// AveragePool; uneven pads: the padded input's averages, divided (without count_include_pad)
/// by the averages of a padded mask of ones, the share of each window inside the input.
std::vector<OnnxValue> average_pool(const OnnxNode& node) {
  TensorHandle x = node.tensor(0);
  const std::vector<int64_t> in = spatial_dims(node, x);
  const Window w = window_of(node, in, pool_kernel(node));
  if (w.kernel.size() != in.size()) node.fail("kernel_shape does not fit the input's spatial dims");
  if (dilated(w)) return one(dilated_pool(node, x, w, 0));
  const bool include_pad = node.attr_int("count_include_pad", 0) != 0;
  module::AvgPoolOptions options{
      w.kernel, w.strides, w.begin, node.attr_int("ceil_mode", 0) != 0, include_pad, std::nullopt};
  if (pads_in_op(w)) return one(ops::avg_pool(x, options));
  options.padding.assign(in.size(), 0);
  options.count_include_pad = true;
  const TensorHandle sums = ops::avg_pool(pad_input(node, x, w, 0.0), options);
  if (include_pad) return one(sums);
  const TensorHandle inside =
      ops::avg_pool(pad_input(node, ops::full_like(x, 1.0), w, 0.0), options);
  return one(ops::div(sums, inside));
}

/// LpPool: (sum of |x|^p over each window)^(1/p), the sums an average pool dividing by 1.
std::vector<OnnxValue> lp_pool(const OnnxNode& node) {
  TensorHandle x = node.tensor(0);
  const std::vector<int64_t> in = spatial_dims(node, x);
  const Window w = window_of(node, in, pool_kernel(node));
  if (w.kernel.size() != in.size()) node.fail("kernel_shape does not fit the input's spatial dims");
  const int64_t p = node.attr_int("p", 2);
  if (p < 1 || p > 64) node.fail("p ", p);
  if (dilated(w)) return one(dilated_pool(node, x, w, p));
  module::AvgPoolOptions options{w.kernel, w.strides, w.begin, node.attr_int("ceil_mode", 0) != 0,
                                 true,     1};
  TensorHandle powers = ops::powi_scalar(ops::abs(x), p);
  if (!pads_in_op(w)) {
    powers = pad_input(node, powers, w, 0.0);
    options.padding.assign(in.size(), 0);
  }
  return one(ops::powf_scalar(ops::avg_pool(powers, options), 1.0 / static_cast<double>(p)));
}

std::vector<OnnxValue> global_pool(const OnnxNode& node, bool max) {
  TensorHandle x = node.tensor(0);
  spatial_dims(node, x);
  for (std::size_t d = 2; d < x.rank(); ++d)
    x = max ? ops::max_dim(x, static_cast<int64_t>(d)) : ops::mean_dim(x, static_cast<int64_t>(d));
  return one(x);
}

}  // namespace

void add_conv_importers(OnnxImporters& table) {
  table.insert({
      {"Conv", conv},
      {"CausalConvWithState", causal_conv_with_state},
      {"ConvTranspose", conv_transpose},
      {"MaxPool", max_pool},
      {"AveragePool", average_pool},
      {"LpPool", lp_pool},
      {"GlobalAveragePool", [](const OnnxNode& node) { return global_pool(node, false); }},
      {"GlobalMaxPool", [](const OnnxNode& node) { return global_pool(node, true); }},
  });
}

}  // namespace ember::detail
