#include "backends/flex/conv_columns.h"

#include <algorithm>
#include <cstring>

#include "backends/flex/thread_pool.h"

namespace ember::flex {
namespace {

/// Rows of columns per chunk of a parallel im2col.
constexpr int64_t kRowGrain = 4;

int64_t floor_div(int64_t a, int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/// Along one dim, for kernel position k: the small positions [first, last) that meet the large
/// side inside it, and the large position met by small position 0 (may be negative).
struct Reach {
  int64_t first;
  int64_t last;
  int64_t origin;
};

Reach reach(const WindowDim& d, int64_t k) {
  const int64_t origin = k * d.dilation - d.padding;
  // q * stride + origin must lie in [0, large).
  const int64_t first =
      std::clamp<int64_t>(floor_div(-origin + d.stride - 1, d.stride), 0, d.small);
  const int64_t last =
      std::clamp<int64_t>(floor_div(d.large - 1 - origin, d.stride) + 1, first, d.small);
  return {first, last, origin};
}

/// Calls f(small_offset, large_offset, count) for each run of kernel position (kd, kh, kw)'s
/// taps inside the large side: small position small_offset + j meets large position
/// large_offset + j * stride along the last dim, for j < count.
template <typename F>
void for_each_run(const Windows& w, const std::array<int64_t, 3>& k, F&& f) {
  const auto& [dd, dh, dw] = w.dims;
  const Reach rd = reach(dd, k[0]);
  const Reach rh = reach(dh, k[1]);
  const Reach rw = reach(dw, k[2]);
  if (rw.first == rw.last) return;
  for (int64_t qd = rd.first; qd < rd.last; ++qd) {
    const int64_t ld = qd * dd.stride + rd.origin;
    for (int64_t qh = rh.first; qh < rh.last; ++qh) {
      const int64_t lh = qh * dh.stride + rh.origin;
      f((qd * dh.small + qh) * dw.small + rw.first,
        (ld * dh.large + lh) * dw.large + rw.first * dw.stride + rw.origin, rw.last - rw.first);
    }
  }
}

/// Kernel position kernel_index (row-major over the kernel) as (kd, kh, kw).
std::array<int64_t, 3> kernel_position(const Windows& w, int64_t kernel_index) {
  const int64_t kw = kernel_index % w.dims[2].kernel;
  const int64_t kh = kernel_index / w.dims[2].kernel % w.dims[1].kernel;
  const int64_t kd = kernel_index / (w.dims[2].kernel * w.dims[1].kernel);
  return {kd, kh, kw};
}

}  // namespace

int64_t Windows::large_volume() const {
  return dims[0].large * dims[1].large * dims[2].large;
}
int64_t Windows::small_volume() const {
  return dims[0].small * dims[1].small * dims[2].small;
}
int64_t Windows::kernel_volume() const {
  return dims[0].kernel * dims[1].kernel * dims[2].kernel;
}
bool Windows::is_identity() const {
  return std::all_of(dims.begin(), dims.end(), [](const WindowDim& d) {
    return d.kernel == 1 && d.stride == 1 && d.padding == 0 && d.large == d.small;
  });
}

template <typename T>
void image_to_columns(const Windows& w, const T* src, int64_t channels, T* columns) {
  const int64_t kernel = w.kernel_volume();
  const int64_t small = w.small_volume();
  const int64_t large = w.large_volume();
  const int64_t stride = w.dims[2].stride;
  parallel_for(channels * kernel, kRowGrain, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      T* out = columns + row * small;
      const T* channel = src + row / kernel * large;
      std::fill(out, out + small, T{0});
      for_each_run(w, kernel_position(w, row % kernel), [&](int64_t q, int64_t l, int64_t n) {
        for (int64_t j = 0; j < n; ++j)
          out[q + j] = channel[l + j * stride];
      });
    }
  });
}

template <typename T>
void add_columns_to_image(const Windows& w, const T* columns, int64_t channels, T* dst) {
  const int64_t kernel = w.kernel_volume();
  const int64_t small = w.small_volume();
  const int64_t large = w.large_volume();
  const int64_t stride = w.dims[2].stride;
  // One channel per task: the rows of a channel add into the same elements.
  parallel_for(channels, 1, [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      T* channel = dst + c * large;
      for (int64_t k = 0; k < kernel; ++k) {
        const T* in = columns + (c * kernel + k) * small;
        for_each_run(w, kernel_position(w, k), [&](int64_t q, int64_t l, int64_t n) {
          for (int64_t j = 0; j < n; ++j)
            channel[l + j * stride] += in[q + j];
        });
      }
    }
  });
}

template void image_to_columns(const Windows&, const float*, int64_t, float*);
template void image_to_columns(const Windows&, const double*, int64_t, double*);
template void add_columns_to_image(const Windows&, const float*, int64_t, float*);
template void add_columns_to_image(const Windows&, const double*, int64_t, double*);

}  // namespace ember::flex
