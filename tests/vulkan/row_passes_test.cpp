// Which cases the shader backends' fused row kernels take (backends/shader/row_passes.h), without
// a device: f32 only, i32 and i64 targets, no empty rows, every loop below lavapipe's 65535 turns,
// and a forward op exactly where its gradient op is taken.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "backends/shader/row_passes.h"

namespace ember::shader {
namespace {

constexpr uint32_t kGroups = 65535;
/// A device of large bindings, on lavapipe.
constexpr DeviceLimits kLimits{uint64_t{1} << 31, kGroups, 16384, 8, kCpuDeviceLoopTurns};

bool takes(const ir::Op& op, const std::vector<ir::TensorMeta>& inputs,
           const DeviceLimits& limits = kLimits) {
  return row_passes_take(op, inputs, limits);
}

/// LayerNorm's inputs (x and a weight) and its gradient op's (x, weight, mean, rstd, grad_y).
struct NormInputs {
  std::vector<ir::TensorMeta> forward, backward;
};

NormInputs norm_inputs(const Shape& x, DType dtype) {
  const ir::TensorMeta rows{Shape(std::vector<int64_t>(x.dims().begin(), x.dims().end() - 1)),
                            dtype == DType::F64 ? DType::F64 : DType::F32};
  const ir::TensorMeta weight{Shape{x.dims().back()}, dtype};
  return {{{x, dtype}, weight}, {{x, dtype}, weight, rows, rows, {x, dtype}}};
}

TEST(RowPasses, LayerNormIsTakenOnF32ExactlyWhereItsGradientIs) {
  const ir::LayerNorm norm{1e-5, false, true, false};
  for (const Shape& x : {Shape{3, 3000}, Shape{2, 5, 1}, Shape{1, 8'000'000}, Shape{70'000, 4},
                         Shape{0, 4}, Shape{4, 0}}) {
    for (const DType dtype : {DType::F32, DType::F64, DType::F16}) {
      const NormInputs in = norm_inputs(x, dtype);
      const bool forward = takes(norm, in.forward);
      EXPECT_EQ(forward, takes(ir::LayerNormGrad{norm}, in.backward)) << x << " " << dtype;
      const bool expected = dtype == DType::F32 && x.num_elements() > 0 &&
                            x.dims().back() < 8'000'000 && x.dims().front() < 60'000;
      EXPECT_EQ(forward, expected) << x << " " << dtype;
    }
  }
}

TEST(RowPasses, CrossEntropyTakesI32AndI64TargetsWhereItsGradientIsTaken) {
  const ir::CrossEntropy loss{-100, 0.1, false};
  for (const DType targets : {DType::I64, DType::I32, DType::U8, DType::U32}) {
    const std::vector<ir::TensorMeta> forward = {{Shape{5, 3000}, DType::F32}, {Shape{5}, targets}};
    std::vector<ir::TensorMeta> backward = forward;
    backward.push_back({Shape{5}, DType::F32});
    backward.push_back({Shape{5}, DType::F32});
    const bool expected = targets == DType::I64 || targets == DType::I32;
    EXPECT_EQ(takes(loss, forward), expected) << targets;
    EXPECT_EQ(takes(ir::CrossEntropyGrad{loss}, backward), expected) << targets;
  }
}

TEST(RowPasses, SoftmaxGradIsTakenAlongAnyDimWithinTheLoopLimit) {
  const ir::TensorMeta y{Shape{3, 500, 7}, DType::F32};
  for (const int64_t dim : {0, 1, 2})
    EXPECT_TRUE(takes(ir::SoftmaxGrad{{dim, false}}, {y, y})) << dim;
  const ir::TensorMeta long_lanes{Shape{1, 8'000'000}, DType::F32};
  EXPECT_FALSE(takes(ir::SoftmaxGrad{{1, true}}, {long_lanes, long_lanes}));
  // A GPU's loops have no such limit.
  DeviceLimits gpu = kLimits;
  gpu.max_loop_turns = loop_turns_on(false);
  EXPECT_TRUE(takes(ir::SoftmaxGrad{{1, true}}, {long_lanes, long_lanes}, gpu));
  // Not a fused row op: never taken.
  EXPECT_FALSE(takes(ir::Softmax{1}, {y}));
}

TEST(RowPasses, NoInvocationLoopsPastTheLimitOnTheLongestRowTaken) {
  // A row of 7.6 million elements: 2 passes of 29688 turns, a tree's 8 and one turn of the rows.
  const LaneGeometry lanes{1, 7'600'000, 1};
  EXPECT_LE(row_turns(lanes, kGroups, 2, 1), kCpuDeviceLoopTurns);
  // Many rows: each workgroup loops over ceil(rows / 65535) of them.
  const LaneGeometry rows{1'000'000, 300, 1};
  EXPECT_EQ(row_groups(rows, kGroups), kGroups);
  EXPECT_EQ(row_turns(rows, kGroups, 2, 1), 16 * (1 + 2 * 2 + 8));
}

}  // namespace
}  // namespace ember::shader
