// IndexCopyKernel: the shader backends' kernels of data movement and indexing (full, arange, cat,
// slice_assign, select, gather, select_assign, scatter: index_copy.h's kernels, words and
// dispatches), written once over a backend's KernelRunner (kernel_runner.h) and its kernel
// sources (GLSL for vulkan, WGSL for wgpu: each backend's index_copy_sources.h).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "backends/shader/device_limits.h"
#include "backends/shader/index_copy.h"

namespace ember::shader {

/// Runner: a backend's KernelRunner.
template <typename Runner>
class IndexCopyKernel {
 public:
  using Range = typename Runner::Range;

  IndexCopyKernel(const Runner& runner, IndexCopySources sources)
      : runner_(runner), sources_(sources) {}

  /// What the device allows one kernel.
  const DeviceLimits& limits() const { return runner_.limits(); }
  /// Records dispatch over tensors (index_copy.h names them per kernel), each bound rounded up to
  /// whole words: the kernels read and write 32-bit words (the pools' slices have room; wgpu's
  /// stream pads its bindings so too).
  void run(const IndexCopyDispatch& dispatch, std::span<const Range> tensors) {
    std::vector<Range> bound(tensors.begin(), tensors.end());
    for (Range& range : bound)
      range.bytes = (range.bytes + 3) / 4 * 4;
    runner_.dispatch(sources_.of(dispatch.key), std::as_bytes(std::span(dispatch.words)),
                     std::span<const Range>(bound),
                     groups_for(dispatch.elements, runner_.limits().max_groups));
  }

 private:
  Runner runner_;
  IndexCopySources sources_;
};

}  // namespace ember::shader
