// SoftmaxKernel: the shader backends' softmax and log-softmax of f32 along any dim
// (softmax_passes.h's lanes and dispatch), written once over a backend's KernelRunner
// (kernel_runner.h) and its kernel sources (GLSL for vulkan, WGSL for wgpu: each backend's
// softmax_sources.h). f64 and f16 run on the host.
#pragma once

#include <string>
#include <utility>

#include "backends/shader/softmax_passes.h"
#include "ir/ops.h"

namespace ember::shader {

/// A backend's softmax kernels (x -> y, f32, softmax_passes.h's parameter words): short_lanes,
/// one invocation a lane; workgroup, one workgroup a lane.
struct SoftmaxSources {
  std::string short_lanes;
  std::string workgroup;
};

/// Runner: a backend's KernelRunner.
template <typename Runner>
class SoftmaxKernel {
 public:
  using Range = typename Runner::Range;

  SoftmaxKernel(const Runner& runner, SoftmaxSources sources)
      : runner_(runner), sources_(std::move(sources)) {}

  /// Whether run takes softmax of x: f32, what softmax_passes_take takes.
  bool takes(const ir::Softmax& softmax, const ir::TensorMeta& x) const {
    return x.dtype == DType::F32 && softmax_passes_take(softmax, x, runner_.limits());
  }
  /// Records softmax of x (contiguous) into out (x's shape, contiguous). takes() holds.
  void run(const ir::Softmax& softmax, const Range& x, const ir::TensorMeta& x_meta,
           const Range& out) {
    record_softmax(softmax, x_meta, x, out, sources_.short_lanes, sources_.workgroup,
                   runner_.limits().max_groups, runner_.dispatcher());
  }

 private:
  Runner runner_;
  SoftmaxSources sources_;
};

}  // namespace ember::shader
