// The shader backends' random tensors (vulkan's and wgpu's random_source), written once: which
// ops the kernels take and their parameter words. Element i is
// ir::random_element<float>(distribution, key, i): Philox4x32-10 of the counter {i, 0, 0, 0}
// under the op's key, word 0's top 24 bits as u. The kernels draw the default distribution (u)
// and Bernoulli (dropout's masks: u's 24 bits compared with the probability's threshold in
// integers, exactly as ir/random.h's double comparison), bit for bit as every device does
// (docs/random.md). Uniform and normal draws need a fused multiply-add that rounds once, which a
// shader cannot count on (lavapipe computes GLSL's fma as a product and a sum): they are drawn on
// the host (parameter initialisation, not a training step's work).
// Parameter words: n, key low, key high, threshold (Bernoulli: 1 where u < p, u = k 2^-24, that
// is where k < ceil(p 2^24), ir::bernoulli_threshold_f32; the default distribution: 2^24 + 1,
// never reached by k, and the kernel writes u).
#pragma once

#include <cstdint>
#include <vector>

#include "ir/ops.h"
#include "ir/random.h"

namespace ember::shader {

/// The random kernel's invocations a workgroup, each drawing elements a dispatch's invocations
/// apart.
inline constexpr uint32_t kRandomWorkgroup = 256;

/// Whether the random kernels take op on a device whose kernels bind at most max_binding bytes:
/// f32 of the default distribution or Bernoulli, fewer than 2^31 elements (the counter's low
/// word is the index), within one binding.
inline bool random_kernels_take(const ir::Random& op, uint64_t max_binding) {
  const auto n = static_cast<uint64_t>(op.shape.num_elements());
  const Distribution::Kind kind = op.distribution.kind;
  return op.dtype == DType::F32 &&
         (kind == Distribution::Kind::Default || kind == Distribution::Kind::Bernoulli) &&
         n < (uint64_t{1} << 31) && n * 4 <= max_binding;
}

/// The kernels' parameter words for op (random_kernels_take holds).
inline std::vector<uint32_t> random_parameters(const ir::Random& op) {
  const Distribution& d = op.distribution;
  const uint32_t threshold = d.kind == Distribution::Kind::Bernoulli
                                 ? ir::bernoulli_threshold_f32(d.a)
                                 : (uint32_t{1} << 24) + 1;
  return {static_cast<uint32_t>(op.shape.num_elements()), static_cast<uint32_t>(op.key),
          static_cast<uint32_t>(op.key >> 32), threshold};
}

}  // namespace ember::shader
