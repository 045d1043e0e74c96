// Highway kernel of simd_gemm.h. Each micro-tile keeps its tile.rows x two vectors of c in
// registers for the whole depth: per step it loads two vectors of b and multiplies them by each
// of the tile's values of a, broadcast. The a sliver (a few KiB) stays in L1 while the b slivers
// of the block stream past it from L2 (packed_gemm.cpp sizes the blocks for that).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/flex/simd_gemm.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <hwy/cache_control.h>

#include <algorithm>

#include "backends/flex/simd_gemm.h"

HWY_BEFORE_NAMESPACE();
namespace ember::flex::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_HAVE_SCALABLE
constexpr int64_t kTileRows = 0;  // no kernel: see simd::GemmTile
#elif HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
constexpr int64_t kTileRows = 14;
#else
constexpr int64_t kTileRows = 6;
#endif

/// How many steps ahead the b sliver is prefetched into L1 (2 KiB on AVX-512): the hardware
/// prefetcher alone left the kernel waiting on L2, 10% slower on one Emerald Rapids core.
constexpr int64_t kPrefetchSteps = 16;

simd::GemmTile GemmTile() {
  const hn::ScalableTag<float> d;
  if constexpr (kTileRows == 0) return {0, 0};
  return {kTileRows, 2 * static_cast<int64_t>(hn::Lanes(d))};
}

#if !HWY_HAVE_SCALABLE

/// out[0, lanes) = acc + beta out (out not read when beta is 0).
template <class D, class V>
HWY_INLINE void StoreUpdated(D d, V acc, float beta, float* out) {
  if (beta != 0.0f) acc = hn::MulAdd(hn::Set(d, beta), hn::LoadU(d, out), acc);
  hn::StoreU(acc, d, out);
}

/// One micro-tile: c[kTileRows, two vectors] = a_sliver b_sliver + beta c.
HWY_INLINE void Tile(const float* HWY_RESTRICT a, const float* HWY_RESTRICT b, int64_t depth,
                     float beta, float* HWY_RESTRICT c, int64_t ldc) {
  const hn::ScalableTag<float> d;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  using V = hn::Vec<decltype(d)>;
  V low[kTileRows], high[kTileRows];
  for (int64_t r = 0; r < kTileRows; ++r)
    low[r] = high[r] = hn::Zero(d);
  for (int64_t p = 0; p < depth; ++p) {
    const float* b_step = b + p * 2 * lanes;
    const V b_low = hn::Load(d, b_step);
    const V b_high = hn::Load(d, b_step + lanes);
    // Past the sliver's end this reaches into the next sliver or beyond the block: a prefetch
    // never faults.
    hwy::Prefetch(b_step + kPrefetchSteps * 2 * lanes);
    hwy::Prefetch(b_step + kPrefetchSteps * 2 * lanes + lanes);
    const float* a_step = a + p * kTileRows;
#pragma GCC unroll 16
    for (int64_t r = 0; r < kTileRows; ++r) {
      const V a_value = hn::Set(d, a_step[r]);
      low[r] = hn::MulAdd(a_value, b_low, low[r]);
      high[r] = hn::MulAdd(a_value, b_high, high[r]);
    }
  }
  for (int64_t r = 0; r < kTileRows; ++r) {
    StoreUpdated(d, low[r], beta, c + r * ldc);
    StoreUpdated(d, high[r], beta, c + r * ldc + lanes);
  }
}

/// A micro-tile of which only c[rows, cols] lies inside c: computed whole into a buffer, and only
/// its own part written.
HWY_NOINLINE void PartialTile(const float* HWY_RESTRICT a, const float* HWY_RESTRICT b,
                              int64_t depth, float beta, float* HWY_RESTRICT c, int64_t ldc,
                              int64_t rows, int64_t cols) {
  constexpr int64_t kCols = 2 * HWY_LANES(float);
  HWY_ALIGN float whole[kTileRows * kCols];
  Tile(a, b, depth, 0.0f, whole, kCols);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < cols; ++j) {
      float& out = c[r * ldc + j];
      out = beta == 0.0f ? whole[r * kCols + j] : whole[r * kCols + j] + beta * out;
    }
  }
}

void GemmBlock(const float* a, int64_t rows, const float* b, int64_t cols, int64_t depth,
               float beta, float* c, int64_t ldc) {
  const int64_t tile_cols = GemmTile().cols;
  for (int64_t i = 0; i < rows; i += kTileRows) {
    const float* a_sliver = a + i * depth;  // sliver i / kTileRows
    for (int64_t j = 0; j < cols; j += tile_cols) {
      const float* b_sliver = b + j * depth;
      if (i + kTileRows <= rows && j + tile_cols <= cols) {
        Tile(a_sliver, b_sliver, depth, beta, c + i * ldc + j, ldc);
      } else {
        PartialTile(a_sliver, b_sliver, depth, beta, c + i * ldc + j, ldc,
                    std::min(kTileRows, rows - i), std::min(tile_cols, cols - j));
      }
    }
  }
}

#else

void GemmBlock(const float*, int64_t, const float*, int64_t, int64_t, float, float*, int64_t) {
  HWY_ASSERT(false);  // unreachable: gemm_tile() said {0, 0}
}

#endif

}  // namespace ember::flex::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ember::flex::simd {

HWY_EXPORT(GemmTile);
HWY_EXPORT(GemmBlock);

GemmTile gemm_tile() {
  return HWY_DYNAMIC_DISPATCH(GemmTile)();
}

void gemm_block(const float* a, int64_t rows, const float* b, int64_t cols, int64_t depth,
                float beta, float* c, int64_t ldc) {
  HWY_DYNAMIC_DISPATCH(GemmBlock)(a, rows, b, cols, depth, beta, c, ldc);
}

}  // namespace ember::flex::simd
#endif  // HWY_ONCE
