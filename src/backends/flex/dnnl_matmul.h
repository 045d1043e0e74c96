// bf16 and f16 GEMM through oneDNN's matmul primitive, where the CPU runs them natively
// (AVX512-BF16 or AMX for bf16: dnnl_native): f32 sums of the reduced operands, the result rounded
// once. Where it does not, matmul.cpp converts to f32 and takes the f32 GEMM.
#pragma once

#include <cstdint>

#include "backends/flex/blas.h"
#include "ember/dtype.h"

namespace ember::flex {

/// Whether gemm_reduced runs dtype (bf16 or f16) natively here; always false for other dtypes
/// and in a build without oneDNN.
bool dnnl_matmul_native(DType dtype);

/// c[m, n] (row-major, leading dimension ldc) = op(a)[m, k] op(b)[k, n], the products summed in
/// f32 and each element of c rounded once; split over flex's pool. T is BFloat16 or Half, and
/// dnnl_matmul_native must hold for it (else an ExecutionError); extents must fit BLAS's int.
template <typename T>
void gemm_reduced(int64_t m, int64_t n, int64_t k, const BlasMatrix<T>& a, const BlasMatrix<T>& b,
                  T* c, int64_t ldc);

}  // namespace ember::flex
