// Full and Random, in parallel on the pool. Every element depends on its index alone (ir/random.h
// draws by counter), so chunks fill independently and give ndarray's values exactly. A Full larger
// than the caches is written with streaming stores; f32, f16 and bf16 random tensors are drawn a
// vector of elements at a time (simd::random).
#include <hwy/cache_control.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <type_traits>

#include "backends/flex/elementwise_runs.h"
#include "backends/flex/kernels.h"
#include "backends/flex/simd.h"
#include "backends/ndarray/element.h"
#include "ir/random.h"

namespace ember::flex {
std::optional<View> run(const ir::Full& op, Views /*in*/, Outputs out) {
  OutputTensor result(out[0]);
  visit_dtype(out[0].dtype, [&]<typename T>() {
    const T value = ndarray::scalar_as<T>(op.value);
    T* data = result.data<T>();
    const int64_t n = out[0].shape.num_elements();
    if (n * static_cast<int64_t>(sizeof(T)) <= kStreamingBytes) {
      parallel_for(n, kElementGrain,
                   [&](int64_t begin, int64_t end) { std::fill(data + begin, data + end, value); });
      return;
    }
    // Larger than the caches (a gradient's seed of ones): streaming stores write each line
    // without reading it first, half the memory traffic of plain stores.
    std::array<T, simd::kFillPattern / sizeof(T)> pattern;
    pattern.fill(value);
    parallel_for(n, kElementGrain, [&](int64_t begin, int64_t end) {
      simd::stream_fill(reinterpret_cast<std::byte*>(data + begin),
                        (end - begin) * static_cast<int64_t>(sizeof(T)),
                        reinterpret_cast<const std::byte*>(pattern.data()));
      hwy::FlushStream();
    });
  });
  return result.view();
}

namespace {

/// f32 values simd::random draws at a time for an f16 or bf16 tensor, on the stack: 4 KiB.
constexpr int64_t kNarrowBlock = 1024;

/// Elements [begin, end) of op, T drawn in f32 (ir::random_compute_t), a vector of elements at a
/// time by simd::random; f16 and bf16 round them block by block as convert_element does
/// (simd::narrow).
template <typename T>
void draw_in_f32(const ir::Random& op, T* out, int64_t begin, int64_t end) {
  const auto draw = [&](int64_t at, float* to, int64_t n) {
    simd::random(op.distribution, op.key, static_cast<uint64_t>(at), to, n);
  };
  if constexpr (std::is_same_v<T, float>) {
    draw(begin, out + begin, end - begin);
  } else {
    std::array<float, kNarrowBlock> block;
    for (int64_t at = begin; at < end; at += kNarrowBlock) {
      const int64_t n = std::min(kNarrowBlock, end - at);
      draw(at, block.data(), n);
      simd::narrow(block.data(), out + at, n);
    }
  }
}

}  // namespace

std::optional<View> run(const ir::Random& op, Views /*in*/, Outputs out) {
  OutputTensor result(out[0]);
  visit_dtype(out[0].dtype, [&]<typename T>() {
    T* data = result.data<T>();
    parallel_for(out[0].shape.num_elements(), kElementGrain, [&](int64_t begin, int64_t end) {
      if constexpr (std::is_same_v<ir::random_compute_t<T>, float>) {
        draw_in_f32(op, data, begin, end);
      } else {
        // f64, the integers and bool are drawn in double, element by element.
        for (int64_t i = begin; i < end; ++i) {
          const auto index = static_cast<uint64_t>(i);
          data[i] =
              detail::convert_element<T>(ir::random_element<T>(op.distribution, op.key, index));
        }
      }
    });
  });
  return result.view();
}

}  // namespace ember::flex
