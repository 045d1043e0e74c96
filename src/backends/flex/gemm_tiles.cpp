#include "backends/flex/gemm_tiles.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ember::flex {
namespace {

/// Multiply-adds below which a tile of its own costs more (waking a thread) than it saves.
constexpr int64_t kMinTileWork = int64_t{1} << 15;

}  // namespace

std::pair<int64_t, int64_t> gemm_grid(int64_t m, int64_t n, int64_t k) {
  const int64_t by_work = std::max<int64_t>(m * n * k / kMinTileWork, 1);
  const int64_t tiles = std::min(by_work, int64_t{ThreadPool::instance().threads()});
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

}  // namespace ember::flex
