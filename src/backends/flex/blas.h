// GEMM through OpenBLAS (cblas_sgemm / cblas_dgemm), row-major. OpenBLAS runs as many threads as
// the flex thread pool has (set before the first call). f32 GEMM goes elsewhere in two cases: to
// ember's own GEMM (packed_gemm.h) for large products on 16 threads or more of an AVX-512 CPU,
// where it is measured faster than the libraries; and to oneDNN (dnnl_gemm.h) where OpenBLAS
// picked generic pre-AVX2 kernels on an AVX2 CPU (a model its DYNAMIC_ARCH table does not know).
// EMBER_GEMM=openblas|onednn|packed overrides both rules, for every product.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ember::flex {

/// A matrix operand of a GEMM as BLAS reads it: op(M) is M itself, row-major with leading
/// dimension ld, or M's transpose when transposed (M then row-major [cols, rows]).
template <typename T>
struct BlasMatrix {
  const T* data;
  int64_t ld;
  bool transposed;
};

/// How BLAS can read a [rows, cols] matrix whose elements lie row_stride and col_stride apart:
/// row-major (unit col stride) or transposed (unit row stride), or nullopt when neither works
/// (a zero, negative or non-unit inner stride, or a leading dimension beyond BLAS's int: the
/// caller copies first). The data pointer is
/// left null.
template <typename T>
std::optional<BlasMatrix<T>> blas_layout(int64_t rows, int64_t cols, int64_t row_stride,
                                         int64_t col_stride);

/// The library that runs f32 GEMM.
enum class GemmLibrary { OpenBlas, OneDnn, Packed };

/// The library an EMBER_GEMM value names ("openblas", "onednn" or "packed": ember's own), or
/// nullopt when it is unset or empty (the automatic rules then decide). Anything else is an
/// InvalidArgument.
std::optional<GemmLibrary> gemm_library_from(const char* env_value);

/// Whether an OpenBLAS core name (openblas_get_corename, any case) is one of its kernel sets
/// that predate AVX2: on an AVX2 CPU those mean OpenBLAS did not recognize the model.
bool is_pre_avx2_openblas_core(std::string_view core_name);

/// Whether every extent of a GEMM fits BLAS's int.
bool fits_blas(int64_t m, int64_t n, int64_t k);

/// c[m, n] (row-major, leading dimension ldc) = op(a)[m, k] op(b)[k, n] + beta c. With beta 0,
/// c is not read (it may be uninitialized). Extents must fit BLAS's int (fits_blas).
void gemm(int64_t m, int64_t n, int64_t k, const BlasMatrix<float>& a, const BlasMatrix<float>& b,
          float beta, float* c, int64_t ldc);
void gemm(int64_t m, int64_t n, int64_t k, const BlasMatrix<double>& a, const BlasMatrix<double>& b,
          double beta, double* c, int64_t ldc);

}  // namespace ember::flex
