#include "backends/flex/convert.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <numeric>
#include <optional>
#include <type_traits>
#include <vector>

#include "backends/flex/bfloat16_bits.h"
#include "backends/flex/dim_last.h"
#include "backends/flex/half_bits.h"
#include "backends/flex/kernels.h"
#include "backends/flex/simd.h"
#include "backends/flex/strided_loop.h"
#include "backends/flex/thread_pool.h"
#include "backends/flex/view_ops.h"

namespace ember::flex {
namespace {

/// Elements per chunk of a parallel conversion.
constexpr int64_t kConvertGrain = int64_t{1} << 15;

/// Elements per block of a contiguous run: a fixed count, which the compiler vectorizes at -O2
/// (its cost model leaves a loop of unknown count scalar).
constexpr int64_t kBlock = 32;

/// detail::convert_element<To>(value), inline where flex has its own (bfloat16_bits.h,
/// half_bits.h).
template <typename To, typename From>
To element(From value) {
  if constexpr (std::is_same_v<From, float> && std::is_same_v<To, BFloat16>) {
    return to_bfloat16(value);
  } else if constexpr (std::is_same_v<From, BFloat16> && std::is_same_v<To, float>) {
    return from_bfloat16(value);
  } else if constexpr (std::is_same_v<From, Half> && std::is_same_v<To, float>) {
    return from_half(value);
  } else if constexpr (std::is_same_v<From, bool> && !std::is_same_v<To, bool>) {
    // 0 and 1 are exact in every dtype: through f32, inline, rather than convert_element's
    // general integer path (a mask cast to bf16 by autocast's relu backward).
    return element<To>(value ? 1.0f : 0.0f);
  } else {
    return detail::convert_element<To>(value);
  }
}

/// count elements from src to dst, both contiguous, in blocks.
template <typename From, typename To>
void convert_run(const From* src, To* dst, int64_t count) {
  int64_t j = 0;
  for (; j + kBlock <= count; j += kBlock) {
    for (int64_t i = 0; i < kBlock; ++i)
      dst[j + i] = element<To>(src[j + i]);
  }
  for (; j < count; ++j)
    dst[j] = element<To>(src[j]);
}

/// The conversions between f32 and the narrow floats, at the CPU's widest vectors (simd.h).
void convert_run(const BFloat16* src, float* dst, int64_t count) {
  simd::widen(src, dst, count);
}
void convert_run(const Half* src, float* dst, int64_t count) {
  simd::widen(src, dst, count);
}
void convert_run(const float* src, BFloat16* dst, int64_t count) {
  simd::narrow(src, dst, count);
}
void convert_run(const float* src, Half* dst, int64_t count) {
  simd::narrow(src, dst, count);
}

template <typename From, typename To>
void convert_elements(const View& x, To* dst) {
  const std::vector<int64_t> dst_strides = x.shape.contiguous_strides();
  const StridedLoop<2> loop(x.shape, {dst_strides, x.strides});
  const From* src = x.data<From>();
  const int64_t stride = loop.inner_stride(1);
  parallel_for(loop.size(), kConvertGrain, [&](int64_t begin, int64_t end) {
    loop.for_range(begin, end, [&](const StridedLoop<2>::Offsets& at, int64_t count) {
      if (stride == 1) return convert_run(src + at[1], dst + at[0], count);
      for (int64_t j = 0; j < count; ++j)
        dst[at[0] + j] = element<To>(src[at[1] + j * stride]);
    });
  });
}

/// The axes that put x's dims in order of decreasing stride, when that makes it contiguous (a
/// transposed or permuted tensor); else nullopt.
std::optional<std::vector<int64_t>> dense_order(const View& x) {
  std::vector<int64_t> axes(x.shape.rank());
  std::iota(axes.begin(), axes.end(), int64_t{0});
  std::stable_sort(axes.begin(), axes.end(), [&](int64_t a, int64_t b) {
    return x.strides[static_cast<std::size_t>(a)] > x.strides[static_cast<std::size_t>(b)];
  });
  if (!permuted(x, axes).is_contiguous()) return std::nullopt;
  return axes;
}

}  // namespace

View converted(const View& x, DType dtype) {
  // A permuted tensor converts in its memory order, in contiguous runs, and keeps its layout: a
  // transposed weight cast for a product is read as it lies, and the product reads the result
  // transposed, without a copy.
  if (!x.is_contiguous()) {
    if (const std::optional<std::vector<int64_t>> axes = dense_order(x))
      return permuted(converted(permuted(x, *axes), dtype), inverse_axes(*axes));
  }
  OutputTensor out({x.shape, dtype});
  visit_dtype(x.dtype, [&]<typename From>() {
    visit_dtype(dtype, [&]<typename To>() { convert_elements<From>(x, out.data<To>()); });
  });
  return out.view();
}

std::optional<View> run(const ir::Cast& op, Views in, Outputs /*out*/) {
  return converted(in[0], op.dtype);
}

}  // namespace ember::flex
