// The fused attention's cases and words (backends/shader/attention_passes.h), without a device:
// what the kernels take (dtypes, head dims, the device's shared memory and bindings, lavapipe's
// loop limit) and how a broadcast mask is addressed.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <vector>

#include "backends/shader/attention_passes.h"

namespace ember::shader {
namespace {

/// WebGPU's default limits but the bindings (9 storage buffers: the backward's), on lavapipe.
constexpr DeviceLimits kLimits{uint64_t{1} << 27, 65535, 16384, 10, kCpuDeviceLoopTurns};
/// The same on a GPU, whose loops have no limit of their own.
constexpr DeviceLimits kGpuLimits{uint64_t{1} << 27, 65535, 16384, 10, loop_turns_on(false)};

std::vector<ir::TensorMeta> qkv(std::vector<int64_t> batch, int64_t l, int64_t s, int64_t e,
                                int64_t ev, DType dtype = DType::F32) {
  const auto tail = [&](int64_t rows, int64_t cols) {
    std::vector<int64_t> dims = batch;
    dims.push_back(rows);
    dims.push_back(cols);
    return ir::TensorMeta{Shape(dims), dtype};
  };
  return {tail(l, e), tail(s, e), tail(s, ev)};
}

TEST(AttentionPasses, TakeF32UpToHeadDim128AndMasksOfBoolOrF32) {
  const ir::Attention op{0.5, true};
  EXPECT_TRUE(attention_passes_take(op, qkv({2, 3}, 5, 7, 4, 6), kLimits));
  EXPECT_TRUE(attention_passes_take(op, qkv({}, 3, 4, 128, 128), kLimits));
  EXPECT_FALSE(attention_passes_take(op, qkv({2}, 5, 7, 129, 6), kLimits));
  EXPECT_FALSE(attention_passes_take(op, qkv({2}, 5, 7, 4, 129), kLimits));
  EXPECT_FALSE(attention_passes_take(op, qkv({2}, 5, 7, 4, 6, DType::F64), kLimits));
  EXPECT_FALSE(attention_passes_take(op, qkv({2}, 5, 7, 4, 6, DType::F16), kLimits));
  EXPECT_FALSE(attention_passes_take(op, qkv({0}, 5, 7, 4, 6), kLimits));
  EXPECT_FALSE(attention_passes_take(op, qkv({2}, 5, 0, 4, 6), kLimits));
  std::vector<ir::TensorMeta> masked = qkv({2}, 5, 7, 4, 6);
  masked.push_back({Shape{5, 7}, DType::Bool});
  EXPECT_TRUE(attention_passes_take(op, masked, kLimits));
  masked.back().dtype = DType::I32;
  EXPECT_FALSE(attention_passes_take(op, masked, kLimits));
}

TEST(AttentionPasses, RefuseWhatTheDeviceOrLavapipesLoopLimitCannotHold) {
  const ir::Attention op{0.5, false};
  // A tile of 16 rows of E + Ev floats: 8 KiB at E = Ev = 64.
  DeviceLimits small = kLimits;
  small.max_shared_bytes = 8191;
  EXPECT_FALSE(attention_passes_take(op, qkv({1}, 3, 4, 64, 64), small));
  EXPECT_TRUE(attention_passes_take(op, qkv({1}, 3, 4, 32, 32), small));
  // The backward binds 9 storage buffers.
  small = kLimits;
  small.max_storage_buffers = 8;
  EXPECT_FALSE(attention_passes_take(op, qkv({1}, 3, 4, 8, 8), small));
  // Each key of a dK/dV invocation costs it 2 (E + Ev) + 2 turns at least: 4096 queries of
  // E = Ev = 64 pass 60000 turns, 100 do not.
  EXPECT_FALSE(attention_passes_take(op, qkv({1}, 4096, 8, 64, 64), kLimits));
  EXPECT_TRUE(attention_passes_take(op, qkv({1}, 100, 100, 64, 64), kLimits));
}

TEST(AttentionPasses, AGpuTakesWhatLavapipesLoopLimitRefuses) {
  const ir::Attention op{0.5, false};
  for (const auto& inputs : {qkv({1}, 4096, 8, 64, 64), qkv({1}, 4096, 4096, 64, 64)}) {
    EXPECT_FALSE(attention_passes_take(op, inputs, kLimits));
    EXPECT_TRUE(attention_passes_take(op, inputs, kGpuLimits));
  }
}

TEST(AttentionPasses, WordsAddressABroadcastMaskByItsOwnStrides) {
  // q [2, 3, 4, 8], a key-padding mask [2, 1, 1, 5]: entry (n, h) at n * 5 whatever h, the same
  // row for every query.
  std::vector<ir::TensorMeta> in = qkv({2, 3}, 4, 5, 8, 6);
  in.push_back({Shape{2, 1, 1, 5}, DType::Bool});
  const AttentionGeometry g = AttentionGeometry::of({0.25, true}, in);
  EXPECT_EQ(g.batches, 6u);
  EXPECT_EQ(g.mask, AttentionMaskKind::Bool);
  const std::vector<uint32_t> expected = {4, 5, std::bit_cast<uint32_t>(0.25f), 0, 1, 6, 2, 2, 5,
                                          3, 0};
  EXPECT_EQ(g.words(), expected);
  // Forward and dQ a workgroup per entry (4 queries), dK/dV too (5 keys), stats over 24 rows.
  EXPECT_EQ(g.groups(AttentionPass::Forward), 6u);
  EXPECT_EQ(g.groups(AttentionPass::GradKV), 6u);
  EXPECT_EQ(g.groups(AttentionPass::Stats), 1u);
}

}  // namespace
}  // namespace ember::shader
