// How many products the shader backends' matmul kernels have recorded, by kernel, in this
// process: for the tests that a product ran on the device (and on which kernel), not on the host.
#pragma once

#include <atomic>
#include <cstdint>

namespace ember::shader {

struct MatmulRuns {
  std::atomic<uint64_t> tiled{0};        ///< the tiled kernel (every backend, every float dtype)
  std::atomic<uint64_t> cooperative{0};  ///< vulkan's f16 kernel on cooperative matrices
  std::atomic<uint64_t> split{0};        ///< products whose k was split (their partials summed)
  std::atomic<uint64_t> transposed{0};   ///< operands read transposed (a transpose never copied)
};

/// The process's counts (every device's together).
inline MatmulRuns& matmul_runs() {
  static MatmulRuns runs;
  return runs;
}

}  // namespace ember::shader
