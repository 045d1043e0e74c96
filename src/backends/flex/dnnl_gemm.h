// f32 GEMM through oneDNN's dnnl_sgemm, for hosts where OpenBLAS fell back to generic pre-AVX2
// kernels (blas.cpp decides; EMBER_GEMM overrides). oneDNN picks its kernels by CPU features, so
// it runs AVX2 / AVX-512 code on models OpenBLAS does not know.
#pragma once

#include <cstdint>

#include "backends/flex/blas.h"

namespace ember::flex {

/// c[m, n] (row-major, leading dimension ldc) = op(a)[m, k] op(b)[k, n] + beta c, as gemm
/// (blas.h), split over flex's pool. Returns false, writing nothing, when the build has no oneDNN
/// (dnnl_in_build). A oneDNN error is an ExecutionError.
bool gemm_onednn(int64_t m, int64_t n, int64_t k, const BlasMatrix<float>& a,
                 const BlasMatrix<float>& b, float beta, float* c, int64_t ldc);

}  // namespace ember::flex
