// Full and Random, in parallel on the pool. Every element depends on its index alone (ir/random.h
// draws by counter), so chunks fill independently and give ndarray's values exactly. A Full larger
// than the caches is written with streaming stores.
#include <hwy/cache_control.h>

#include <algorithm>
#include <array>
#include <cstddef>

#include "backends/flex/elementwise_runs.h"
#include "backends/flex/kernels.h"
#include "backends/flex/simd.h"
#include "backends/ndarray/element.h"
#include "ir/random.h"

namespace ember::flex {
namespace {

/// A new tensor of meta with element i = value.operator()<T>(i).
template <typename F>
View generate(const ir::TensorMeta& meta, const F& value) {
  OutputTensor result(meta);
  visit_dtype(meta.dtype, [&]<typename T>() {
    T* out = result.data<T>();
    parallel_for(meta.shape.num_elements(), kElementGrain, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
        out[i] = value.template operator()<T>(i);
    });
  });
  return result.view();
}

}  // namespace

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

std::optional<View> run(const ir::Random& op, Views /*in*/, Outputs out) {
  return generate(out[0], [&]<typename T>(int64_t i) {
    const auto value = ir::random_element<T>(op.distribution, op.key, static_cast<uint64_t>(i));
    return detail::convert_element<T>(value);
  });
}

}  // namespace ember::flex
