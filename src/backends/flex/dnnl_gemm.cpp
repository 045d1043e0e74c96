// gemm_onednn (dnnl_gemm.h): c is cut into a grid of about square tiles, one per pool thread, each
// a dnnl_sgemm call on one OpenMP thread (gemm_tiles.h).
#include "backends/flex/dnnl_gemm.h"

#ifdef EMBER_WITH_DNNL

#include <oneapi/dnnl/dnnl.h>
#include <oneapi/dnnl/dnnl_debug.h>
#include <string>

#include "backends/flex/gemm_tiles.h"
#include "backends/flex/one_openmp_thread.h"
#include "ember/error.h"

namespace ember::flex {
namespace {

/// One dnnl_sgemm on the calling thread.
void sgemm_here(int64_t m, int64_t n, int64_t k, const BlasMatrix<float>& a,
                const BlasMatrix<float>& b, float beta, float* c, int64_t ldc) {
  const OneOpenMpThread one_thread;
  const dnnl_status_t status = dnnl_sgemm(a.transposed ? 'T' : 'N', b.transposed ? 'T' : 'N', m, n,
                                          k, 1.0f, a.data, a.ld, b.data, b.ld, beta, c, ldc);
  if (status != dnnl_success) {
    throw ExecutionError(std::string("[gemm] oneDNN dnnl_sgemm failed: ") +
                         dnnl_status2str(status));
  }
}

}  // namespace

bool gemm_onednn(int64_t m, int64_t n, int64_t k, const BlasMatrix<float>& a,
                 const BlasMatrix<float>& b, float beta, float* c, int64_t ldc) {
  if (m == 0 || n == 0) return true;  // c is empty: nothing to write
  for_each_gemm_tile(m, n, k, [&](int64_t row, int64_t rows, int64_t col, int64_t cols) {
    sgemm_here(rows, cols, k, rows_of(a, row), columns_of(b, col), beta, c + row * ldc + col, ldc);
  });
  return true;
}

}  // namespace ember::flex

#else

namespace ember::flex {

bool gemm_onednn(int64_t, int64_t, int64_t, const BlasMatrix<float>&, const BlasMatrix<float>&,
                 float, float*, int64_t) {
  return false;
}

}  // namespace ember::flex

#endif
