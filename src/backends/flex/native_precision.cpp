#include "backends/flex/native_precision.h"

namespace ember::flex {

CpuFeatures cpu_features() {
  static const CpuFeatures features = [] {
    CpuFeatures read;
#if defined(__x86_64__) || defined(__i386__)
    read.avx512_bf16 = __builtin_cpu_supports("avx512bf16");
    read.avx512_fp16 = __builtin_cpu_supports("avx512fp16");
#endif
    return read;
  }();
  return features;
}

bool wants_native_kernels(DType dtype, const CpuFeatures& cpu) {
  if (dtype == DType::BF16) return cpu.avx512_bf16;
  if (dtype == DType::F16) return cpu.avx512_fp16;
  return false;
}

}  // namespace ember::flex
