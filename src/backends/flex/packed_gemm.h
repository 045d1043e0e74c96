// ember's own f32 GEMM: op(a) and op(b) packed once each into slivers that simd_gemm.h's
// register-blocked kernel reads, then c computed in units of work over flex's pool. Where many
// threads share a large product it beats a grid of library calls, each of which packs its own
// share of a and b (docs/backends/flex.md has the figures); blas.cpp decides where it runs.
#pragma once

#include <cstdint>

#include "backends/flex/blas.h"

namespace ember::flex {

/// Whether gemm_packed has a kernel for this CPU (not on targets with scalable vectors).
bool packed_gemm_available();

/// Whether gemm_packed is the faster choice for an m x n x k product on a pool of threads
/// threads, by measurement: on AVX-512, with 16 threads or more, from 2^34 multiply-adds on, each
/// extent at least 1024.
bool packed_gemm_preferred(int64_t m, int64_t n, int64_t k, int threads);

/// c[m, n] (row-major, leading dimension ldc) = op(a)[m, k] op(b)[k, n] + beta c, as gemm
/// (blas.h). With beta 0, c is not read. Requires packed_gemm_available(). Packs into a buffer
/// of about (m + n) k floats, kept for the next products until memory_cleanup
/// (packing_buffer.h).
void gemm_packed(int64_t m, int64_t n, int64_t k, const BlasMatrix<float>& a,
                 const BlasMatrix<float>& b, float beta, float* c, int64_t ldc);

}  // namespace ember::flex
