// SortKernel: the shader backends' stable sort along one dim (sort_passes.h's passes), written
// once over a backend's KernelRunner (kernel_runner.h) and its kernel sources (GLSL for vulkan,
// WGSL for wgpu: each backend's sort_sources.h).
#pragma once

#include <utility>

#include "backends/shader/kernel_runner.h"
#include "backends/shader/sort_passes.h"
#include "ir/ops.h"

namespace ember::shader {

/// Runner: a backend's KernelRunner.
template <typename Runner>
class SortKernel {
 public:
  using Range = typename Runner::Range;
  /// The backend's sort kernels for keys of a dtype.
  using Sources = SortSources (*)(DType);
  /// scratch: a long lane's (key, position) pairs.
  SortKernel(const Runner& runner, Sources sources, Scratch<Range> scratch)
      : runner_(runner), sources_(sources), scratch_(std::move(scratch)) {}

  /// Whether run takes sort of x (sort_kernels_take on this device).
  bool takes(const ir::Sort& sort, const ir::TensorMeta& x) const {
    return sort_kernels_take(sort, x, runner_.limits());
  }
  /// Records sort of x (contiguous) into values and positions (its outputs, contiguous). takes()
  /// holds.
  void run(const ir::Sort& sort, const Range& x, const ir::TensorMeta& x_meta, const Range& values,
           const Range& positions) {
    record_sort(sort, x_meta, x, values, positions, sources_(x_meta.dtype),
                runner_.limits().max_groups, scratch_, runner_.dispatcher());
  }

 private:
  Runner runner_;
  Sources sources_;
  Scratch<Range> scratch_;
};

}  // namespace ember::shader
