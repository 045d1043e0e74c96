// ElementwiseRuns: how an elementwise kernel walks its operands. The inputs are broadcast to the
// output's shape as views (stride 0 on broadcast dims, no copy) and the walk is cut into runs
// along which every input steps by 1 or by 0 (a repeated value), the two forms the SIMD loops
// take; an input that would step otherwise (a transposed or sliced-with-step view) is copied
// contiguous first, once. The output is contiguous and written run by run on the thread pool.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "backends/flex/copy.h"
#include "backends/flex/strided_loop.h"
#include "backends/flex/thread_pool.h"
#include "backends/flex/view_ops.h"

namespace ember::flex {

/// Elements per chunk of a parallel elementwise kernel: enough to amortize waking a thread.
inline constexpr int64_t kElementGrain = int64_t{1} << 15;

/// A kernel reading and writing more bytes than this, more than the last-level cache share of a
/// core group holds (32 MiB on an AMD EPYC CCD), stores its outputs with streaming stores: they
/// would be evicted before any later use, and a plain store first reads each line.
inline constexpr int64_t kStreamingBytes = int64_t{32} << 20;

template <std::size_t N>
class ElementwiseRuns {
 public:
  using Loop = StridedLoop<N + 1>;

  ElementwiseRuns(const Shape& shape, const std::array<View, N>& inputs)
      : shape_(shape), out_strides_(shape.contiguous_strides()) {
    for (std::size_t k = 0; k < N; ++k)
      inputs_[k] = broadcast_to(inputs[k], shape);
    for (std::size_t k = 0; k < N; ++k) {
      const int64_t step = loop().inner_stride(k + 1);
      if (step != 0 && step != 1) inputs_[k] = broadcast_to(contiguous(inputs[k]), shape);
    }
  }

  /// Input k as walked (broadcast to the output's shape).
  const View& input(std::size_t k) const { return inputs_[k]; }

  /// Calls f(offsets, steps, count) for every run, in parallel chunks: the run's output
  /// elements are offsets[0] + j and input k's are offsets[k + 1] + j * steps[k], j < count.
  template <typename F>
  void for_each_run(const F& f) const {
    const Loop walk = loop();
    std::array<int64_t, N> steps;
    for (std::size_t k = 0; k < N; ++k)
      steps[k] = walk.inner_stride(k + 1);
    parallel_for(walk.size(), kElementGrain, [&](int64_t begin, int64_t end) {
      walk.for_range(begin, end,
                     [&](const typename Loop::Offsets& at, int64_t count) { f(at, steps, count); });
    });
  }

 private:
  Loop loop() const {
    std::array<std::span<const int64_t>, N + 1> strides;
    strides[0] = out_strides_;
    for (std::size_t k = 0; k < N; ++k)
      strides[k + 1] = inputs_[k].strides;
    return Loop(shape_, strides);
  }

  Shape shape_;
  std::vector<int64_t> out_strides_;
  std::array<View, N> inputs_;
};

}  // namespace ember::flex
