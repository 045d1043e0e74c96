// gemm_onednn (dnnl_gemm.h): c is cut into a grid of about square tiles, one per pool thread, each
// a dnnl_sgemm call on one OpenMP thread (one_openmp_thread.h says why).
#include "backends/flex/dnnl_gemm.h"

#ifdef EMBER_WITH_DNNL

#include <oneapi/dnnl/dnnl.h>
#include <oneapi/dnnl/dnnl_debug.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "backends/flex/one_openmp_thread.h"
#include "backends/flex/thread_pool.h"
#include "ember/error.h"

namespace ember::flex {
namespace {

/// Multiply-adds below which a slice of its own costs more (waking a thread) than it saves.
constexpr int64_t kMinSliceWork = int64_t{1} << 15;

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

/// op(matrix) from row begin on: matrix's own rows, or its columns when it is transposed.
BlasMatrix<float> rows_of(BlasMatrix<float> matrix, int64_t begin) {
  matrix.data += matrix.transposed ? begin : begin * matrix.ld;
  return matrix;
}

/// op(matrix) from column begin on: matrix's own columns, or its rows when it is transposed.
BlasMatrix<float> columns_of(BlasMatrix<float> matrix, int64_t begin) {
  matrix.data += matrix.transposed ? begin * matrix.ld : begin;
  return matrix;
}

/// How many parts the rows and the columns of c are cut into, for at most tiles tiles: as many
/// tiles as there are (or as the extents allow), and among those grids the one whose tiles are
/// closest to square, since each call packs its own share of a and b (with whole rows per call,
/// every call would pack all of b: 16 times a 64 MiB b on 16 threads at n = 4096).
std::pair<int64_t, int64_t> grid(int64_t m, int64_t n, int64_t tiles) {
  std::pair<int64_t, int64_t> best{1, 1};
  double best_skew = std::numeric_limits<double>::infinity();
  for (int64_t row_parts = 1; row_parts <= std::min(tiles, m); ++row_parts) {
    const int64_t col_parts = std::min(tiles / row_parts, n);
    const double skew =
        std::abs(std::log(static_cast<double>(m) * static_cast<double>(col_parts) /
                          (static_cast<double>(n) * static_cast<double>(row_parts))));
    const int64_t count = row_parts * col_parts, best_count = best.first * best.second;
    if (count > best_count || (count == best_count && skew < best_skew)) {
      best = {row_parts, col_parts};
      best_skew = skew;
    }
  }
  return best;
}

}  // namespace

bool gemm_onednn(int64_t m, int64_t n, int64_t k, const BlasMatrix<float>& a,
                 const BlasMatrix<float>& b, float beta, float* c, int64_t ldc) {
  if (m == 0 || n == 0) return true;  // c is empty: nothing to write
  const int64_t by_work = std::max<int64_t>(m * n * k / kMinSliceWork, 1);
  const auto [row_parts, col_parts] =
      grid(m, n, std::min(by_work, int64_t{ThreadPool::instance().threads()}));
  const auto cut = [](int64_t extent, int64_t parts, int64_t part) {
    return extent * part / parts;
  };
  parallel_for(row_parts * col_parts, 1, [&](int64_t begin, int64_t end) {
    for (int64_t tile = begin; tile < end; ++tile) {
      const int64_t row = cut(m, row_parts, tile / col_parts);
      const int64_t col = cut(n, col_parts, tile % col_parts);
      const int64_t rows = cut(m, row_parts, tile / col_parts + 1) - row;
      const int64_t cols = cut(n, col_parts, tile % col_parts + 1) - col;
      sgemm_here(rows, cols, k, rows_of(a, row), columns_of(b, col), beta, c + row * ldc + col,
                 ldc);
    }
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
