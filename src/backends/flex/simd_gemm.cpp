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
#include <utility>

#include "backends/flex/simd_gemm.h"
#include "core/ceil_div.h"

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

/// Lines [first, first + count) of memory starting at data, fetched toward L2.
HWY_INLINE void PrefetchLines(const float* data, int64_t first, int64_t count) {
  for (int64_t line = first; line < first + count; ++line)
    __builtin_prefetch(data + line * simd::kCacheLineFloats, 0, 2);
}

/// One micro-tile: c[kTileRows, two vectors] = a_sliver b_sliver + beta c; meanwhile the
/// upcoming_lines cache lines from upcoming are fetched toward L2, one per step.
HWY_INLINE void Tile(const float* HWY_RESTRICT a, const float* HWY_RESTRICT b, int64_t depth,
                     float beta, float* HWY_RESTRICT c, int64_t ldc, const float* upcoming,
                     int64_t upcoming_lines) {
  const hn::ScalableTag<float> d;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  using V = hn::Vec<decltype(d)>;
  V low[kTileRows], high[kTileRows];
  // Every loop over the tile's rows is unrolled whole: the arrays then live in registers only
  // (with this one rolled, GCC zeroed a copy of one of them in memory for every tile).
#pragma GCC unroll 16
  for (int64_t r = 0; r < kTileRows; ++r) {
    low[r] = hn::Zero(d);
    high[r] = hn::Zero(d);
  }
  for (int64_t p = 0; p < depth; ++p) {
    const float* b_step = b + p * 2 * lanes;
    const V b_low = hn::Load(d, b_step);
    const V b_high = hn::Load(d, b_step + lanes);
    // Past the sliver's end this reaches into the next sliver or beyond the block: a prefetch
    // never faults.
    hwy::Prefetch(b_step + kPrefetchSteps * 2 * lanes);
    hwy::Prefetch(b_step + kPrefetchSteps * 2 * lanes + lanes);
    if (p < upcoming_lines) PrefetchLines(upcoming, p, 1);
    const float* a_step = a + p * kTileRows;
#pragma GCC unroll 16
    for (int64_t r = 0; r < kTileRows; ++r) {
      const V a_value = hn::Set(d, a_step[r]);
      low[r] = hn::MulAdd(a_value, b_low, low[r]);
      high[r] = hn::MulAdd(a_value, b_high, high[r]);
    }
  }
  PrefetchLines(upcoming, depth, upcoming_lines - depth);  // lines beyond one per step
#pragma GCC unroll 16
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
  Tile(a, b, depth, 0.0f, whole, kCols, nullptr, 0);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < cols; ++j) {
      float& out = c[r * ldc + j];
      out = beta == 0.0f ? whole[r * kCols + j] : whole[r * kCols + j] + beta * out;
    }
  }
}

/// Which lines of upcoming one tile fetches: the first tiles share its first part, the others its
/// second, each part in about equal shares.
class UpcomingShares {
 public:
  UpcomingShares(const simd::Upcoming (&upcoming)[2], int64_t tiles) {
    const int64_t lines[2] = {LinesOf(upcoming[0]), LinesOf(upcoming[1])};
    const int64_t total = lines[0] + lines[1];
    first_part_tiles_ =
        total == 0 ? tiles : std::clamp<int64_t>(tiles * lines[0] / total, 1, tiles);
    const int64_t part_tiles[2] = {first_part_tiles_,
                                   std::max<int64_t>(tiles - first_part_tiles_, 1)};
    for (int part = 0; part < 2; ++part) {
      data_[part] = upcoming[part].data;
      lines_[part] = lines[part];
      per_tile_[part] = ceil_div(lines[part], part_tiles[part]);
    }
  }

  /// Tile t's share: its start and its count of lines.
  std::pair<const float*, int64_t> Of(int64_t tile) const {
    const int part = tile < first_part_tiles_ ? 0 : 1;
    const int64_t first = (part == 0 ? tile : tile - first_part_tiles_) * per_tile_[part];
    const int64_t count = std::clamp<int64_t>(lines_[part] - first, 0, per_tile_[part]);
    return {count > 0 ? data_[part] + first * simd::kCacheLineFloats : nullptr, count};
  }

 private:
  static int64_t LinesOf(const simd::Upcoming& region) {
    return region.data == nullptr ? 0 : ceil_div(region.floats, simd::kCacheLineFloats);
  }

  int64_t first_part_tiles_;
  const float* data_[2];
  int64_t lines_[2];
  int64_t per_tile_[2];
};

void GemmBlock(const float* a, int64_t rows, const float* b, int64_t cols, int64_t depth,
               float beta, float* c, int64_t ldc, const simd::Upcoming (&upcoming)[2]) {
  const int64_t tile_cols = GemmTile().cols;
  const int64_t col_tiles = ceil_div(cols, tile_cols);
  const UpcomingShares shares(upcoming, ceil_div(rows, kTileRows) * col_tiles);
  for (int64_t i = 0; i < rows; i += kTileRows) {
    const float* a_sliver = a + i * depth;  // sliver i / kTileRows
    for (int64_t j = 0; j < cols; j += tile_cols) {
      const float* b_sliver = b + j * depth;
      if (i + kTileRows <= rows && j + tile_cols <= cols) {
        const auto [upcoming_data, upcoming_lines] =
            shares.Of(i / kTileRows * col_tiles + j / tile_cols);
        Tile(a_sliver, b_sliver, depth, beta, c + i * ldc + j, ldc, upcoming_data, upcoming_lines);
      } else {
        PartialTile(a_sliver, b_sliver, depth, beta, c + i * ldc + j, ldc,
                    std::min(kTileRows, rows - i), std::min(tile_cols, cols - j));
      }
    }
  }
}

#else

void GemmBlock(const float*, int64_t, const float*, int64_t, int64_t, float, float*, int64_t,
               const simd::Upcoming (&)[2]) {
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
                float beta, float* c, int64_t ldc, const Upcoming (&upcoming)[2]) {
  HWY_DYNAMIC_DISPATCH(GemmBlock)(a, rows, b, cols, depth, beta, c, ldc, upcoming);
}

}  // namespace ember::flex::simd
#endif  // HWY_ONCE
