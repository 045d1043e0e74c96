// The host-known range of integer tensors that lets an op skip checking their values on the
// device (core/index_range.h): exact for uploads, none where the values could pass int64 or an
// arange's values would wrap in their dtype.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "core/index_range.h"

namespace ember::detail {
namespace {

TEST(IndexRange, AnUploadsRangeIsItsSmallestAndLargestValue) {
  const TensorData i8 =
      TensorData(std::vector<double>{2, -3, 5, 0}, Shape{2, 2}).convert(DType::I8);
  const auto range = index_range_of(i8);
  ASSERT_TRUE(range);
  EXPECT_EQ(range->lowest, -3);
  EXPECT_EQ(range->highest, 5);
  EXPECT_FALSE(range->within(6));  // -3 is no index
  const auto u16 =
      index_range_of(TensorData(std::vector<double>{7, 0, 65535}, Shape{3}).convert(DType::U16));
  ASSERT_TRUE(u16);
  EXPECT_EQ(u16->highest, 65535);
  EXPECT_TRUE(u16->within(65536));
  EXPECT_FALSE(u16->within(65535));
}

TEST(IndexRange, NoneForFloatsBoolsEmptyTensorsAndValuesPastInt64) {
  EXPECT_FALSE(index_range_of(TensorData(std::vector<double>{1, 2}, Shape{2})));
  EXPECT_FALSE(
      index_range_of(TensorData(std::vector<double>{1, 0}, Shape{2}).convert(DType::Bool)));
  EXPECT_FALSE(index_range_of(TensorData(std::vector<double>{}, Shape{0}).convert(DType::I64)));
  const std::vector<uint64_t> huge{1, uint64_t{1} << 63};
  EXPECT_FALSE(index_range_of(TensorData(huge, Shape{2})));
}

TEST(IndexRange, AnArangesRangeIsItsEndsUnlessTheyWrapInItsDType) {
  const auto down = arange_range(DType::I64, 10, -3, 4);  // 10 7 4 1
  ASSERT_TRUE(down);
  EXPECT_EQ(down->lowest, 1);
  EXPECT_EQ(down->highest, 10);
  const auto up = arange_range(DType::I8, 0, 1, 128);  // 0 .. 127
  ASSERT_TRUE(up);
  EXPECT_EQ(up->highest, 127);
  EXPECT_FALSE(arange_range(DType::I8, 0, 1, 129));  // 128 wraps to -128
  EXPECT_FALSE(arange_range(DType::U8, -1, 1, 3));   // -1 wraps to 255
  EXPECT_FALSE(arange_range(DType::F32, 0, 1, 3));   // not an index dtype
  EXPECT_FALSE(arange_range(DType::I32, 0, 1, 0));   // no values
}

}  // namespace
}  // namespace ember::detail
