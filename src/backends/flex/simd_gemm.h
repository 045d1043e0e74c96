// The register-blocked heart of packed_gemm.h's f32 GEMM, written with Highway and dispatched at
// run time: one block of c updated from a packed block of a and a packed block of b.
#pragma once

#include <cstdint>

namespace ember::flex::simd {

/// Floats in a 64-byte cache line, also the widest vector's alignment.
inline constexpr int64_t kCacheLineFloats = 16;

/// The micro-tile of gemm_block on this CPU: its rows (of a) and columns (of b, two vectors). Rows
/// are 14 on AVX-512 (28 accumulators of its 32 registers) and 6 elsewhere (12 of 16). {0, 0}
/// where the target has scalable vectors, which cannot be held in arrays: no kernel there.
struct GemmTile {
  int64_t rows;
  int64_t cols;
};
GemmTile gemm_tile();

/// Memory the caller reads after the block: gemm_block fetches it toward L2 a few cache lines per
/// tile, so that it arrives from memory spread over the block's work rather than all at once
/// when the caller's next block starts.
struct Upcoming {
  const float* data = nullptr;
  int64_t floats = 0;
};

/// c[rows, cols] (row-major, leading dimension ldc) = a b + beta c, where a[rows, depth] is packed
/// as slivers of tile.rows rows (sliver s at a + s * depth * tile.rows, element [i][p] of it at
/// p * tile.rows + i, rows past the end zero) and b[depth, cols] as slivers of tile.cols columns
/// (sliver t at b + t * depth * tile.cols, element [p][j] at p * tile.cols + j, columns past the
/// end zero). b's slivers must be aligned to a vector. With beta 0, c is not read. The first and
/// second parts of upcoming are prefetched by the first and last tiles, in proportion.
void gemm_block(const float* a, int64_t rows, const float* b, int64_t cols, int64_t depth,
                float beta, float* c, int64_t ldc, const Upcoming (&upcoming)[2]);

}  // namespace ember::flex::simd
