// The size rule every tensor keeps (core/tensor_bytes.h): bytes and byte strides fit in int64.
#include "core/tensor_bytes.h"

#include <gtest/gtest.h>

#include <limits>

namespace ember::detail {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

TEST(TensorBytes, IsTheElementCountTimesTheDTypeSize) {
  EXPECT_EQ(checked_tensor_bytes(Shape({2, 3}), DType::F32), 24);
  EXPECT_EQ(checked_tensor_bytes(Shape({5}), DType::F64), 40);
  EXPECT_EQ(checked_tensor_bytes(Shape({3, 0, 4}), DType::I16), 0);
  // The largest f32 tensor of one dim: 2^61 - 1 elements, 2^63 - 4 bytes.
  EXPECT_EQ(checked_tensor_bytes(Shape({(int64_t{1} << 61) - 1}), DType::F32), kMax - 3);
}

TEST(TensorBytes, RefusesCountsPastInt64) {
  // 2^61 f32 elements: 2^63 bytes, one past INT64_MAX.
  EXPECT_EQ(checked_tensor_bytes(Shape({int64_t{1} << 61}), DType::F32), std::nullopt);
  EXPECT_EQ(checked_tensor_bytes(Shape({int64_t{1} << 62}), DType::F32), std::nullopt);
  // Each dim fits, the product does not (and would wrap to 0 bytes in 64 bits).
  EXPECT_EQ(checked_tensor_bytes(Shape({int64_t{1} << 32, int64_t{1} << 32}), DType::U8),
            std::nullopt);
  EXPECT_EQ(checked_tensor_bytes(Shape({-1}), DType::U8), std::nullopt);
}

TEST(TensorBytes, AnEmptyTensorMayHaveHugeDimsWhoseStridesFit) {
  // [2^63 - 1, 0]: dim 0's stride is 1 element; nothing is addressed.
  EXPECT_EQ(checked_tensor_bytes(Shape({kMax, 0}), DType::F32), 0);
  // [0, 2^63 - 1]: dim 0's stride would be 2^63 - 1 elements of 4 bytes.
  EXPECT_EQ(checked_tensor_bytes(Shape({0, kMax}), DType::F32), std::nullopt);
}

}  // namespace
}  // namespace ember::detail
