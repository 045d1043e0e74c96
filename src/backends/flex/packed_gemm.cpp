// gemm_packed (packed_gemm.h), in the manner of GotoBLAS, in two passes over flex's pool. The first
// packs all of op(a) and op(b), each once, into the slivers of simd_gemm.h's kernel, a depth step
// (kDepth) at a time. The second cuts c into units of work (a range of rows by a range of
// columns) that the threads claim one at a time; a unit walks the depth, and at each step runs
// the kernel over its rows of a (the slivers stay in L1 in turn) and its columns of b a block at a
// time (each block stays in L2). Nothing waits on anything but the end of each pass: on a machine
// whose cores run at uneven speeds (a busy host, a VM) the faster threads take more units, where
// a barrier per depth step would wait for the slowest; and nothing is packed twice, where a grid
// of library calls packs each part of a and b once per call that reads it.
#include "backends/flex/packed_gemm.h"

#include <algorithm>
#include <cstring>

#include "backends/flex/packing_buffer.h"
#include "backends/flex/simd_gemm.h"
#include "backends/flex/thread_pool.h"
#include "core/ceil_div.h"

namespace ember::flex {
namespace {

/// Depth of one step: an a sliver (kDepth x 14 floats, 14 KiB) stays in L1 beside a b sliver.
constexpr int64_t kDepth = 256;
/// Columns of one block of b: kDepth x 512 floats (512 KiB) stay in L2.
constexpr int64_t kBlockCols = 512;
/// The largest unit of work, 256 x 512: its share of c (512 KiB) and of a (256 KiB) stay in L2
/// beside a block of b (units of 1024 columns ran slower on 16 Emerald Rapids cores).
constexpr int64_t kUnitRows = 256;
constexpr int64_t kUnitCols = 512;
/// Units per thread below which units shrink (to no less than a tile): a unit's time varies with
/// its thread's speed, and the spread evens out over several.
constexpr int64_t kUnitsPerThread = 4;
/// The rule of packed_gemm_preferred, from products on 16 Emerald Rapids cores (GFLOP/s against
/// oneDNN's grid of dnnl_sgemm calls in the same run, docs/backends/flex.md): on 16 threads 4096^3
/// 1166-1244 against 1032-1082, 3072^3 1088-1157 against 1035-1046, 2048^3 988-1037 against
/// 1028-1060; on 8 threads 4096^3 687 against 734. On 1 and 2 threads oneDNN stays ahead by
/// 10-15%: the fewer the calls of its grid, the fewer times each operand is packed.
constexpr double kPreferredMultiplyAdds = 0x1p34;
constexpr int kPreferredThreads = 16;
/// Every extent at least this: the products measured were square, and in a skinny one (a few
/// rows against a wide b) packing b costs as much as the product itself.
constexpr int64_t kPreferredMinExtent = 1024;
/// simd_gemm.h's tile rows on AVX-512, the only kernel measured against the libraries.
constexpr int64_t kAvx512TileRows = 14;

/// Packs op(a)[row, row + tile_rows) x [p, p + depth) (rows past m zero) into out, element [i][q]
/// at q * tile_rows + i.
void pack_a_sliver(const BlasMatrix<float>& a, int64_t m, int64_t row, int64_t p, int64_t depth,
                   int64_t tile_rows, float* out) {
  const int64_t live = std::min(tile_rows, m - row);
  if (live < tile_rows) std::fill(out, out + depth * tile_rows, 0.0f);
  if (a.transposed) {  // op(a)[i][q] = a[q][i]: each step's values lie side by side
    const float* src = a.data + p * a.ld + row;
    for (int64_t q = 0; q < depth; ++q)
      std::memcpy(out + q * tile_rows, src + q * a.ld, live * sizeof(float));
  } else {  // row by row: the reads run along memory, the writes stay in the sliver (in L1)
    for (int64_t r = 0; r < live; ++r) {
      const float* src = a.data + (row + r) * a.ld + p;
      for (int64_t q = 0; q < depth; ++q)
        out[q * tile_rows + r] = src[q];
    }
  }
}

/// Packs op(b)[p, p + depth) x [col, col + tile_cols) (columns past n zero) into out, element
/// [q][j] at q * tile_cols + j.
void pack_b_sliver(const BlasMatrix<float>& b, int64_t n, int64_t p, int64_t depth, int64_t col,
                   int64_t tile_cols, float* out) {
  const int64_t live = std::min(tile_cols, n - col);
  if (live < tile_cols) std::fill(out, out + depth * tile_cols, 0.0f);
  if (b.transposed) {  // op(b)[q][j] = b[j][q]: a column of the sliver is contiguous
    for (int64_t j = 0; j < live; ++j) {
      const float* src = b.data + (col + j) * b.ld + p;
      for (int64_t q = 0; q < depth; ++q)
        out[q * tile_cols + j] = src[q];
    }
  } else {
    const float* src = b.data + p * b.ld + col;
    for (int64_t q = 0; q < depth; ++q)
      std::memcpy(out + q * tile_cols, src + q * b.ld, live * sizeof(float));
  }
}

/// Where a and b are packed: step p (a multiple of kDepth) of op(a) starts at a + p * rows (rows
/// padded to whole tiles), and its sliver s at s * tile.rows * depth from there; b likewise.
struct Packed {
  int64_t rows;      // m, padded to whole tiles
  int64_t cols;      // n, padded to whole tiles
  int64_t a_floats;  // a's share of the buffer, whole cache lines: b's slivers start aligned
  int64_t floats;    // the whole buffer
  float* a = nullptr;
  float* b = nullptr;

  Packed(int64_t m, int64_t n, int64_t k, const simd::GemmTile& tile)
      : rows(ceil_div(m, tile.rows) * tile.rows),
        cols(ceil_div(n, tile.cols) * tile.cols),
        a_floats(ceil_div(rows * k, simd::kCacheLineFloats) * simd::kCacheLineFloats),
        floats(a_floats + cols * k) {}
};

/// The first pass: every sliver of op(a) and op(b), each step of the depth, packed once into
/// buffer (packed.floats floats).
Packed pack(int64_t m, int64_t n, int64_t k, const BlasMatrix<float>& a, const BlasMatrix<float>& b,
            const simd::GemmTile& tile, Packed packed, float* buffer) {
  packed.a = buffer;
  packed.b = buffer + packed.a_floats;
  const int64_t a_slivers = packed.rows / tile.rows, b_slivers = packed.cols / tile.cols;
  const int64_t steps = ceil_div(k, kDepth), slivers = a_slivers + b_slivers;
  parallel_for(steps * slivers, 1, [&](int64_t begin, int64_t end) {
    for (int64_t task = begin; task < end; ++task) {
      const int64_t p = task / slivers * kDepth, s = task % slivers;
      const int64_t depth = std::min(kDepth, k - p);
      if (s < a_slivers) {
        pack_a_sliver(a, m, s * tile.rows, p, depth, tile.rows,
                      packed.a + p * packed.rows + s * tile.rows * depth);
      } else {
        const int64_t t = s - a_slivers;
        pack_b_sliver(b, n, p, depth, t * tile.cols, tile.cols,
                      packed.b + p * packed.cols + t * tile.cols * depth);
      }
    }
  });
  return packed;
}

/// The rows and columns of a unit of work, whole tiles: the largest unit, halved (columns first,
/// down to a block of b, then rows, then columns again) until every thread finds
/// kUnitsPerThread units or a unit is one tile.
struct UnitShape {
  int64_t rows, cols;
};
UnitShape unit_shape(int64_t m, int64_t n, const simd::GemmTile& tile, int64_t threads) {
  const auto whole = [](int64_t extent, int64_t step) {
    return std::max(extent / step, int64_t{1}) * step;
  };
  UnitShape unit{whole(std::min(kUnitRows, m), tile.rows),
                 whole(std::min(kUnitCols, n), tile.cols)};
  while (ceil_div(m, unit.rows) * ceil_div(n, unit.cols) < kUnitsPerThread * threads) {
    if (unit.cols > std::max(kBlockCols, tile.cols)) {
      unit.cols = whole(unit.cols / 2, tile.cols);
    } else if (unit.rows > tile.rows) {
      unit.rows = whole(unit.rows / 2, tile.rows);
    } else if (unit.cols > tile.cols) {
      unit.cols = whole(unit.cols / 2, tile.cols);
    } else {
      break;
    }
  }
  return unit;
}

/// c[m, n] = beta c, for a product of depth 0.
void scale(int64_t m, int64_t n, float beta, float* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    float* row = c + i * ldc;
    if (beta == 0.0f) {
      std::fill(row, row + n, 0.0f);
    } else {
      std::transform(row, row + n, row, [beta](float x) { return beta * x; });
    }
  }
}

/// One unit of the second pass: c[row, row + rows) x [col, col + cols) = op(a) op(b) + beta c
/// over the whole depth k, from the packed slivers (row and col are multiples of the tile). While
/// a block runs, the unit's next block of a and b is fetched toward L2: packed a and b are far
/// larger than the caches, and a block that found them in memory would wait on them.
void run_unit(int64_t row, int64_t rows, int64_t col, int64_t cols, int64_t k, const Packed& packed,
              float beta, float* c, int64_t ldc) {
  const auto a_at = [&](int64_t p, int64_t depth) {
    return packed.a + p * packed.rows + row * depth;
  };
  const auto b_at = [&](int64_t p, int64_t left, int64_t depth) {
    return packed.b + p * packed.cols + left * depth;
  };
  for (int64_t p = 0; p < k; p += kDepth) {
    const int64_t depth = std::min(kDepth, k - p);
    const float step_beta = p == 0 ? beta : 1.0f;  // later steps add to the earlier ones
    for (int64_t left = col; left < col + cols; left += kBlockCols) {
      const int64_t width = std::min(kBlockCols, col + cols - left);
      // The next block: this step's next columns, else the next step's first ones and its a.
      simd::Upcoming upcoming[2];
      if (left + kBlockCols < col + cols) {
        upcoming[1] = {b_at(p, left + kBlockCols, depth),
                       std::min(kBlockCols, col + cols - left - kBlockCols) * depth};
      } else if (p + kDepth < k) {
        const int64_t next_depth = std::min(kDepth, k - p - kDepth);
        upcoming[0] = {a_at(p + kDepth, next_depth), rows * next_depth};
        upcoming[1] = {b_at(p + kDepth, col, next_depth), std::min(kBlockCols, cols) * next_depth};
      }
      simd::gemm_block(a_at(p, depth), rows, b_at(p, left, depth), width, depth, step_beta,
                       c + row * ldc + left, ldc, upcoming);
    }
  }
}

}  // namespace

bool packed_gemm_available() {
  return simd::gemm_tile().rows > 0;
}

bool packed_gemm_preferred(int64_t m, int64_t n, int64_t k, int threads) {
  return simd::gemm_tile().rows == kAvx512TileRows && threads >= kPreferredThreads &&
         std::min({m, n, k}) >= kPreferredMinExtent &&
         static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) >=
             kPreferredMultiplyAdds;
}

void gemm_packed(int64_t m, int64_t n, int64_t k, const BlasMatrix<float>& a,
                 const BlasMatrix<float>& b, float beta, float* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  if (k == 0) return scale(m, n, beta, c, ldc);
  const simd::GemmTile tile = simd::gemm_tile();
  const Packed layout(m, n, k, tile);
  const PackingBuffer buffer(layout.floats);
  const Packed packed = pack(m, n, k, a, b, tile, layout, buffer.data());
  const UnitShape unit = unit_shape(m, n, tile, ThreadPool::instance().threads());
  const int64_t col_units = ceil_div(n, unit.cols);
  parallel_for(ceil_div(m, unit.rows) * col_units, 1, [&](int64_t first, int64_t last) {
    for (int64_t u = first; u < last; ++u) {
      const int64_t row = u / col_units * unit.rows;
      const int64_t col = u % col_units * unit.cols;
      run_unit(row, std::min(unit.rows, m - row), col, std::min(unit.cols, n - col), k, packed,
               beta, c, ldc);
    }
  });
}

}  // namespace ember::flex
