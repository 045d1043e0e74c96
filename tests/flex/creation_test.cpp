// Full and Random split over the pool: the values of tensors large enough to take several chunks
// must be ndarray's, element for element (each element depends on its index alone).
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <utility>
#include <vector>

#include "flex_test_util.h"

namespace ember::flex::test {
namespace {

constexpr int64_t kManyChunks = 5 * 32768 + 7;  // several chunks of the pool and a partial one

TEST(FlexCreation, LargeRandomTensorsEqualTheReference) {
  for (const Distribution& d : {Distribution::uniform(-2.0, 3.0), Distribution::normal(1.0, 2.0),
                                Distribution::bernoulli(0.3)}) {
    for (const DType dtype : {DType::F32, DType::F64, DType::I32}) {
      const ir::Random op{Shape({kManyChunks}), dtype, d, 1234};
      FlexBackend flex;
      ndarray::NdArrayBackend reference;
      EXPECT_EQ(run_on(flex, op, {}).at(0), run_on(reference, op, {}).at(0)) << dtype_name(dtype);
    }
  }
}

TEST(FlexCreation, LargeFullTensorsHoldTheValueEverywhere) {
  FlexBackend flex;
  const TensorData f32 = run_on(flex, ir::Full{Shape({kManyChunks}), DType::F32, 2.5}, {}).at(0);
  for (const float v : f32.to_vector<float>())
    ASSERT_EQ(v, 2.5F);
  const TensorData i64 = run_on(flex, ir::Full{Shape({3, kManyChunks}), DType::I64, -7}, {}).at(0);
  for (const int64_t v : i64.to_vector<int64_t>())
    ASSERT_EQ(v, -7);
}

TEST(FlexCreation, FullTensorsLargerThanTheCachesEqualTheReference) {
  // Past kStreamingBytes (32 MiB) flex writes with streaming stores from a 64-byte pattern:
  // element counts off every vector width, element sizes of 1, 2, 4 and 8 bytes, and every
  // vector target this CPU runs, so that the pattern's phase and the plain head and tail stores
  // all show.
  constexpr int64_t kBytes = int64_t{32} << 20;
  const std::vector<std::pair<DType, double>> cases = {{DType::F32, -1.25},
                                                       {DType::BF16, 3.5},
                                                       {DType::I8, -3},
                                                       {DType::F64, 0.1},
                                                       {DType::Bool, 1}};
  for (const auto& [dtype, value] : cases) {
    const int64_t n = kBytes / static_cast<int64_t>(dtype_size(dtype)) + 37;
    const ir::Full op{Shape({n}), dtype, value};
    ndarray::NdArrayBackend reference;
    const TensorData expected = run_on(reference, op, {}).at(0);
    for (const int64_t target : hwy::SupportedAndGeneratedTargets()) {
      hwy::SetSupportedTargetsForTest(target);
      FlexBackend flex;
      EXPECT_EQ(run_on(flex, op, {}).at(0), expected)
          << dtype_name(dtype) << " on " << hwy::TargetName(target);
    }
    hwy::SetSupportedTargetsForTest(0);  // back to the CPU's own
  }
}

}  // namespace
}  // namespace ember::flex::test
