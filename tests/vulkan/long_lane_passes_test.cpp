// The passes of the shader backends' long sorts and scans (backends/shader/sort_passes.h,
// cumulative_scan.h), without a device: which kernels a lane's length records, in which order,
// with which merge widths, and what the scratch buffers must fit.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "backends/shader/cumulative_scan.h"
#include "backends/shader/sort_passes.h"

namespace ember::shader {
namespace {

/// A device on lavapipe whose kernels bind at most binding bytes.
DeviceLimits lavapipe_binding(uint64_t binding) {
  return {binding, 65535, 16384, 8, kCpuDeviceLoopTurns};
}

/// A scratch buffer's stand-in: its range is the count of buffers given so far.
struct Scratches {
  mutable int given = 0;
  std::shared_ptr<const void> operator()(uint64_t /*bytes*/, int* range) const {
    *range = 100 + given++;
    return nullptr;
  }
};

/// The kernels record_sort records for a [1, n] f32 sort along dim 1, each with the merge width
/// it reads (parameter word 6).
std::vector<std::pair<std::string, uint32_t>> sort_passes_of(int64_t n) {
  std::vector<std::pair<std::string, uint32_t>> passes;
  Scratches scratch;
  const ir::TensorMeta x{Shape{1, n}, DType::F32};
  record_sort(ir::Sort{1}, x, 0, 1, 2, SortSources{"whole", "blocks", "merge", "gather"}, 65535,
              scratch,
              [&](const std::string& source, std::span<const std::byte> words,
                  std::span<const int> /*tensors*/, uint32_t /*groups*/) {
                uint32_t width = 0;
                std::memcpy(&width, words.data() + 6 * sizeof(uint32_t), sizeof(width));
                passes.emplace_back(source, width);
              });
  return passes;
}

TEST(SortPasses, ALaneOfUpTo2048IsOneWorkgroupsAndALongerOneBlocksMergedUntilOneRun) {
  using Passes = std::vector<std::pair<std::string, uint32_t>>;
  EXPECT_EQ(sort_passes_of(2048), (Passes{{"whole", 0}}));
  EXPECT_EQ(sort_passes_of(2049), (Passes{{"blocks", 0}, {"merge", 2048}, {"gather", 2048}}));
  // 70000 elements: 35 blocks, runs of 2048 doubled five times to 65536, then once more past n.
  Passes expected = {{"blocks", 0}};
  for (uint32_t width = 2048; width <= 65536; width *= 2)
    expected.emplace_back("merge", width);
  expected.emplace_back("gather", 65536);
  EXPECT_EQ(sort_passes_of(70000), expected);
}

TEST(SortPasses, ALongLaneNeedsItsPairsWithinABinding) {
  const ir::TensorMeta x{Shape{3, 70000}, DType::F32};
  const uint64_t pairs = 3 * 70000 * 8;
  EXPECT_TRUE(sort_kernels_take(ir::Sort{1}, x, lavapipe_binding(pairs)));
  EXPECT_FALSE(sort_kernels_take(ir::Sort{1}, x, lavapipe_binding(pairs - 1)));
  // With i32 positions, short lanes need 4 bytes an element (x, the positions), long ones the
  // pairs' 8.
  const ir::Sort long_i32{1, false, DType::I32};
  const ir::Sort short_i32{0, false, DType::I32};
  EXPECT_FALSE(sort_kernels_take(long_i32, x, lavapipe_binding(pairs / 2)));
  EXPECT_TRUE(sort_kernels_take(short_i32, x, lavapipe_binding(pairs / 2)));
}

TEST(ScanPasses, ALongLaneIsBlocksOfAboutItsSquareRootThenCarriesThenTheBlocksAgain) {
  const auto passes_of = [](const ScanDispatch& d) {
    std::vector<ScanPass> passes;
    Scratches scratch;
    record_scan(d, 0, 1, scratch,
                [&](ScanPass pass, std::span<const int> /*tensors*/) { passes.push_back(pass); });
    return passes;
  };
  const ir::Cumulative sum{ir::CumulativeOp::Sum, 1};
  const ScanDispatch short_lanes = ScanDispatch::of(sum, {Shape{3, 4096, 2}, DType::F32});
  EXPECT_EQ(passes_of(short_lanes), std::vector<ScanPass>{ScanPass::Whole});
  EXPECT_EQ(short_lanes.invocations(ScanPass::Whole), uint64_t{6});
  // sqrt(70000) = 264.6: blocks of 265, 265 of them a lane (the last 40 elements short).
  const ScanDispatch long_lanes = ScanDispatch::of(sum, {Shape{3, 70000, 2}, DType::F32});
  EXPECT_EQ(long_lanes.block, uint64_t{265});
  EXPECT_EQ(long_lanes.blocks, uint64_t{265});
  EXPECT_EQ(
      passes_of(long_lanes),
      (std::vector<ScanPass>{ScanPass::BlockTotals, ScanPass::CarryScan, ScanPass::FromCarries}));
  EXPECT_EQ(long_lanes.invocations(ScanPass::BlockTotals), uint64_t{6 * 265});
  EXPECT_EQ(long_lanes.invocations(ScanPass::CarryScan), uint64_t{6});
  // A lane just past 4096 still has blocks of at least 256.
  const ScanDispatch just_past =
      ScanDispatch::of({ir::CumulativeOp::Max, 0}, {Shape{4097}, DType::I32});
  EXPECT_EQ(just_past.block, uint64_t{256});
  EXPECT_EQ(just_past.blocks, uint64_t{17});
  // x within a binding fits; the carries are smaller (doubles for a float sum: 6 x 265 x 8).
  const ir::TensorMeta x{Shape{3, 70000, 2}, DType::F32};
  EXPECT_TRUE(long_lanes.fits(x, lavapipe_binding(3 * 70000 * 2 * 4)));
  EXPECT_FALSE(long_lanes.fits(x, lavapipe_binding(3 * 70000 * 2 * 4 - 1)));
}

}  // namespace
}  // namespace ember::shader
