// Full and Random split over the pool: the values of tensors large enough to take several chunks
// must be ndarray's, element for element (each element depends on its index alone).
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace ember::flex::test
