// RandomKernel: the shader backends' random tensors (random_passes.h's cases and parameters: f32
// draws of the default distribution and Bernoulli by ir/random.h's Philox4x32-10 stream), written
// once over a backend's KernelRunner (kernel_runner.h) and its kernel source (GLSL for vulkan,
// WGSL for wgpu: each backend's random_source.h).
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "backends/shader/random_passes.h"
#include "ir/ops.h"

namespace ember::shader {

/// Runner: a backend's KernelRunner.
template <typename Runner>
class RandomKernel {
 public:
  using Range = typename Runner::Range;

  /// source: the kernel, one invocation an element (random_parameters' words).
  RandomKernel(const Runner& runner, std::string source)
      : runner_(runner), source_(std::move(source)) {}

  /// Whether run takes op (random_kernels_take on this device).
  bool takes(const ir::Random& op) const {
    return random_kernels_take(op, runner_.limits().max_binding);
  }
  /// Records op's tensor into out (contiguous). takes() holds.
  void run(const ir::Random& op, const Range& out) {
    const std::vector<uint32_t> words = random_parameters(op);
    if (words[0] == 0) return;
    const uint64_t groups = (uint64_t{words[0]} + kRandomWorkgroup - 1) / kRandomWorkgroup;
    runner_.dispatch(
        source_, std::as_bytes(std::span(words)), {&out, 1},
        static_cast<uint32_t>(std::min<uint64_t>(groups, runner_.limits().max_groups)));
  }

 private:
  Runner runner_;
  std::string source_;
};

}  // namespace ember::shader
