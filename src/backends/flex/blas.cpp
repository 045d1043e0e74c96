#include "backends/flex/blas.h"

#include <cblas.h>

#include <algorithm>
#include <limits>
#include <mutex>

#include "backends/flex/thread_pool.h"

namespace ember::flex {
namespace {

/// Gives OpenBLAS the pool's thread count, once: both pools then size themselves alike.
void configure_blas_threads() {
  static std::once_flag once;
  std::call_once(once, [] { openblas_set_num_threads(ThreadPool::instance().threads()); });
}

blasint as_blas(int64_t value) {
  return static_cast<blasint>(value);
}

CBLAS_TRANSPOSE transpose_flag(bool transposed) {
  return transposed ? CblasTrans : CblasNoTrans;
}

}  // namespace

template <typename T>
std::optional<BlasMatrix<T>> blas_layout(int64_t rows, int64_t cols, int64_t row_stride,
                                         int64_t col_stride) {
  // The stride of a dim of size 1 is never followed: it takes whatever value BLAS wants.
  const bool unit_col_stride = cols == 1 || col_stride == 1;
  const int64_t row_ld = rows == 1 ? std::max<int64_t>(cols, 1) : row_stride;
  if (unit_col_stride && row_ld >= std::max<int64_t>(cols, 1) && fits_blas(row_ld, 1, 1)) {
    return BlasMatrix<T>{nullptr, row_ld, false};
  }
  // Seen transposed, a [rows, cols] matrix with unit row stride is a row-major [cols, rows] one.
  const bool unit_row_stride = rows == 1 || row_stride == 1;
  const int64_t col_ld = cols == 1 ? std::max<int64_t>(rows, 1) : col_stride;
  if (unit_row_stride && col_ld >= std::max<int64_t>(rows, 1) && fits_blas(col_ld, 1, 1)) {
    return BlasMatrix<T>{nullptr, col_ld, true};
  }
  return std::nullopt;
}

template std::optional<BlasMatrix<float>> blas_layout(int64_t, int64_t, int64_t, int64_t);
template std::optional<BlasMatrix<double>> blas_layout(int64_t, int64_t, int64_t, int64_t);

bool fits_blas(int64_t m, int64_t n, int64_t k) {
  constexpr int64_t limit = std::numeric_limits<blasint>::max();
  return m <= limit && n <= limit && k <= limit;
}

void gemm(int64_t m, int64_t n, int64_t k, const BlasMatrix<float>& a, const BlasMatrix<float>& b,
          float beta, float* c, int64_t ldc) {
  configure_blas_threads();
  cblas_sgemm(CblasRowMajor, transpose_flag(a.transposed), transpose_flag(b.transposed), as_blas(m),
              as_blas(n), as_blas(k), 1.0f, a.data, as_blas(a.ld), b.data, as_blas(b.ld), beta, c,
              as_blas(ldc));
}

void gemm(int64_t m, int64_t n, int64_t k, const BlasMatrix<double>& a, const BlasMatrix<double>& b,
          double beta, double* c, int64_t ldc) {
  configure_blas_threads();
  cblas_dgemm(CblasRowMajor, transpose_flag(a.transposed), transpose_flag(b.transposed), as_blas(m),
              as_blas(n), as_blas(k), 1.0, a.data, as_blas(a.ld), b.data, as_blas(b.ld), beta, c,
              as_blas(ldc));
}

}  // namespace ember::flex
