// The shader backends' split of a matmul's k (backends/shader/matmul_geometry.h's split_k),
// without a device: which products split, into how many chunks of what length, and the
// parameter words and workgroups the kernels then read.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>

#include "backends/shader/device_limits.h"
#include "backends/shader/matmul_geometry.h"

namespace ember::shader {
namespace {

std::optional<MatmulGeometry> product(int64_t m, int64_t k, int64_t n, uint64_t fill) {
  const ir::TensorMeta lhs{Shape{m, k}, DType::F32};
  const ir::TensorMeta rhs{Shape{k, n}, DType::F32};
  const ir::TensorMeta out{Shape{m, n}, DType::F32};
  return matmul_geometry(lhs, rhs, out, 4, uint64_t{1} << 30, 65535, loop_turns_on(false),
                         kMatmulTile, fill);
}

TEST(MatmulSplit, FewTilesOfALongKSplitIntoChunksOfWholeSteps) {
  // An encoder's projection on a GPU: 8 x 12 = 96 tiles of 264 wanted, so three chunks of 256.
  const MatmulGeometry g = *product(512, 768, 768, fill_groups_on(false));
  EXPECT_EQ(g.splits, 3u);
  EXPECT_EQ(g.chunk, 256u);
  EXPECT_EQ(g.groups()[2], 3u);  // z: the batch entry's chunks
  EXPECT_EQ(g.partial_elements(), 3u * 512 * 768);
  EXPECT_EQ(g.words()[15], 3u);
  EXPECT_EQ(g.words()[16], 256u);
  // A chunk length that does not divide k: whole steps of 16, the last chunk shorter.
  const MatmulGeometry odd = *product(64, 1000, 64, fill_groups_on(true));
  EXPECT_EQ(odd.splits, 3u);  // 4 wanted, 1000 / 256 = 3 at most
  EXPECT_EQ(odd.chunk, 336u);
  EXPECT_LT((odd.splits - 1) * odd.chunk, 1000u);
  EXPECT_GE(odd.splits * odd.chunk, 1000u);
}

TEST(MatmulSplit, EnoughTilesAShortKOrNoFillTargetDoNotSplit) {
  EXPECT_EQ(product(4096, 4096, 4096, fill_groups_on(false))->splits, 1u);
  EXPECT_EQ(product(64, 500, 64, fill_groups_on(false))->splits, 1u);  // chunks below 256
  const MatmulGeometry unsplit = *product(512, 768, 768, 0);
  EXPECT_EQ(unsplit.splits, 1u);
  EXPECT_EQ(unsplit.chunk, 768u);
  EXPECT_EQ(unsplit.words()[15], 1u);
  // At most kMatmulMaxSplits chunks.
  EXPECT_EQ(product(64, 1 << 16, 64, fill_groups_on(false))->splits, kMatmulMaxSplits);
}

}  // namespace
}  // namespace ember::shader
