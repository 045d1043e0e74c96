// A GEMM's output cut into a grid of about square tiles, one per pool thread, each computed by
// one single-threaded library call (dnnl_gemm.cpp's dnnl_sgemm, dnnl_matmul.cpp's matmul
// primitive): the libraries' own OpenMP threads would spin beside the pool's
// (one_openmp_thread.h).
#pragma once

#include <cstdint>
#include <utility>

#include "backends/flex/blas.h"
#include "backends/flex/thread_pool.h"

namespace ember::flex {

/// op(matrix) from row begin on: matrix's own rows, or its columns when it is transposed.
template <typename T>
BlasMatrix<T> rows_of(BlasMatrix<T> matrix, int64_t begin) {
  matrix.data += matrix.transposed ? begin : begin * matrix.ld;
  return matrix;
}

/// op(matrix) from column begin on: matrix's own columns, or its rows when it is transposed.
template <typename T>
BlasMatrix<T> columns_of(BlasMatrix<T> matrix, int64_t begin) {
  matrix.data += matrix.transposed ? begin * matrix.ld : begin;
  return matrix;
}

/// How many parts the rows and the columns of an m x n x k product's output are cut into: as many
/// tiles as there are pool threads (fewer for a small product, where waking a thread costs more
/// than it saves) and among those grids the one whose tiles are closest to square, since each
/// call packs its own share of a and b (with whole rows per call, every call would pack all of b:
/// 16 times a 64 MiB b on 16 threads at n = 4096).
std::pair<int64_t, int64_t> gemm_grid(int64_t m, int64_t n, int64_t k);

/// Calls tile(row, rows, col, cols) for every tile of the m x n output of gemm_grid(m, n, k),
/// side by side on the pool.
template <typename Tile>
void for_each_gemm_tile(int64_t m, int64_t n, int64_t k, const Tile& tile) {
  const auto [row_parts, col_parts] = gemm_grid(m, n, k);
  const auto cut = [](int64_t extent, int64_t parts, int64_t part) {
    return extent * part / parts;
  };
  parallel_for(row_parts * col_parts, 1, [&](int64_t begin, int64_t end) {
    for (int64_t index = begin; index < end; ++index) {
      const int64_t row = cut(m, row_parts, index / col_parts);
      const int64_t col = cut(n, col_parts, index % col_parts);
      tile(row, cut(m, row_parts, index / col_parts + 1) - row, col,
           cut(n, col_parts, index % col_parts + 1) - col);
    }
  });
}

}  // namespace ember::flex
