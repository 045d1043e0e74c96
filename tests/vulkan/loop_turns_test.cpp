// The loop turns the shader backends' kernels may make (backends/shader/device_limits.h), without a
// device: lavapipe's bound on a CPU device, a 32-bit one on a GPU, and a case each refuses or
// takes (matmul's k, its loops some k + k / 16 + 8 turns).
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>

#include "backends/shader/device_limits.h"
#include "backends/shader/matmul_geometry.h"

namespace ember::shader {
namespace {

TEST(LoopTurns, ACpuDeviceStaysBelowLavapipesLimitAndAGpuWithin32Bits) {
  // lavapipe ends an invocation's loops after 65535 turns.
  EXPECT_LT(loop_turns_on(true), uint64_t{65535});
  EXPECT_GT(loop_turns_on(false), loop_turns_on(true));
  // A GPU's turns, and matmul's k + k / 16 + 8 of its longest k, stay within a 32-bit uint.
  const uint64_t gpu = loop_turns_on(false);
  EXPECT_LT(gpu, uint64_t{1} << 31);
  EXPECT_LT(gpu + gpu / 16 + 8, uint64_t{1} << 32);
}

TEST(LoopTurns, AGpuTakesAMatmulOfALongerKThanLavapipe) {
  const int64_t k = 70000;
  const ir::TensorMeta lhs{Shape{2, k}, DType::F32};
  const ir::TensorMeta rhs{Shape{k, 3}, DType::F32};
  const ir::TensorMeta out{Shape{2, 3}, DType::F32};
  const uint64_t binding = uint64_t{1} << 30;
  EXPECT_FALSE(matmul_geometry(lhs, rhs, out, 4, binding, 65535, loop_turns_on(true)));
  const std::optional<MatmulGeometry> gpu =
      matmul_geometry(lhs, rhs, out, 4, binding, 65535, loop_turns_on(false));
  ASSERT_TRUE(gpu);
  EXPECT_EQ(gpu->k, uint64_t{k});
  // lavapipe's bound is itself a k the kernels take there.
  const ir::TensorMeta at_bound_lhs{Shape{2, 60000}, DType::F32};
  const ir::TensorMeta at_bound_rhs{Shape{60000, 3}, DType::F32};
  EXPECT_TRUE(
      matmul_geometry(at_bound_lhs, at_bound_rhs, out, 4, binding, 65535, kCpuDeviceLoopTurns));
}

}  // namespace
}  // namespace ember::shader
