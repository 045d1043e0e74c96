// Which reduced-precision dtypes flex hands to oneDNN's native kernels (matmul, convolution): the
// CPU's instructions, read in one place, and the rule that maps them to a decision. The rule is a
// pure function of the features so that tests can give it CPUs this machine is not.
#pragma once

#include "ember/dtype.h"

namespace ember::flex {

/// The CPU instructions that decide where reduced-precision products run.
struct CpuFeatures {
  /// AVX512-BF16 (vdpbf16ps: bf16 dot products into f32); every AMX CPU has it too.
  bool avx512_bf16 = false;
  /// AVX512-FP16 (f16 arithmetic, Sapphire Rapids on; AMX-FP16 CPUs have it too).
  bool avx512_fp16 = false;
};

/// This CPU's features, as cpuid reports them (read once). The one place flex asks the CPU which
/// reduced-precision instructions it has.
CpuFeatures cpu_features();

/// Whether products of dtype should go to oneDNN's native kernels on a CPU with these features:
/// bf16 needs AVX512-BF16 and f16 needs AVX512-FP16 (without them oneDNN emulates the dtype,
/// slower than converting to f32 once, or has no kernel at all); false for every other dtype. The
/// caller still checks that its oneDNN offers a non-reference kernel (dnnl_context.h).
bool wants_native_kernels(DType dtype, const CpuFeatures& cpu);

}  // namespace ember::flex
