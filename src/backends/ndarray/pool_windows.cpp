#include "backends/ndarray/pool_windows.h"

#include <algorithm>
#include <cstddef>

#include "core/ceil_div.h"

namespace ember::ndarray::pool {
namespace {

/// The window of a sliding pool that starts at start (o * stride - padding, which ir's size rule
/// keeps before the input's end), with its taps dilation apart.
Window sliding_window(int64_t start, int64_t kernel, int64_t dilation, int64_t padding,
                      int64_t in) {
  // Taps in the left padding, and taps before the input's end.
  const int64_t skipped = start < 0 ? ceil_div(-start, dilation) : 0;
  const int64_t before_end = ceil_div(in - start, dilation);
  // PyTorch's divisor with count_include_pad: the window clipped to [start, in + padding).
  const int64_t padded_count = std::min(kernel, in + padding - start);
  return {start + skipped * dilation, std::min(kernel, before_end) - skipped, padded_count};
}

Axis sliding_axis(const ir::Pool& pool, std::size_t dim, int64_t in, int64_t out) {
  Axis axis{in, pool.dilation[dim], {}};
  axis.windows.reserve(static_cast<std::size_t>(out));
  for (int64_t o = 0; o < out; ++o) {
    axis.windows.push_back(sliding_window(o * pool.stride[dim] - pool.padding[dim],
                                          pool.kernel[dim], pool.dilation[dim], pool.padding[dim],
                                          in));
  }
  return axis;
}

Axis adaptive_axis(int64_t in, int64_t out) {
  // In 128 bits: o * in may pass int64 for a large output over a large input.
  using Wide = __int128;
  Axis axis{in, 1, {}};
  axis.windows.reserve(static_cast<std::size_t>(out));
  for (int64_t o = 0; o < out; ++o) {
    const auto start = static_cast<int64_t>(Wide{o} * in / out);
    const auto end = static_cast<int64_t>((Wide{o + 1} * in + out - 1) / out);
    axis.windows.push_back({start, end - start, end - start});
  }
  return axis;
}

/// The windows from input to output, axis a built by make_axis(spatial dim, in, out). No tables
/// for an empty batch: its shape need not describe memory that exists.
template <typename MakeAxis>
Windows windows_of(const Shape& input, const Shape& output, MakeAxis&& make_axis) {
  Windows w;
  w.planes = input[0] * input[1];
  if (w.planes == 0) return w;
  const std::size_t spatial_dims = input.rank() - 2;
  for (std::size_t dim = 0; dim < spatial_dims; ++dim) {
    w.axes[kAxes - spatial_dims + dim] = make_axis(dim, input[dim + 2], output[dim + 2]);
  }
  return w;
}

}  // namespace

int64_t Windows::in_plane() const {
  return axes[0].in_size * axes[1].in_size * axes[2].in_size;
}

int64_t Windows::out_plane() const {
  int64_t size = 1;
  for (const Axis& axis : axes)
    size *= static_cast<int64_t>(axis.windows.size());
  return size;
}

Windows pool_windows(const ir::Pool& pool, const Shape& input, const Shape& output) {
  return windows_of(input, output, [&](std::size_t dim, int64_t in, int64_t out) {
    return sliding_axis(pool, dim, in, out);
  });
}

Windows adaptive_windows(const Shape& input, const Shape& output) {
  return windows_of(input, output,
                    [](std::size_t, int64_t in, int64_t out) { return adaptive_axis(in, out); });
}

}  // namespace ember::ndarray::pool
