// operator<< of the small value types: Scalar, Slice, memory statistics, DeviceSettings.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "ember/device_settings.h"
#include "ember/memory.h"
#include "ember/scalar.h"
#include "ember/slice.h"
#include "test_helpers.h"

namespace ember {
namespace {

using test::printed;

TEST(Print, Scalar) {
  EXPECT_EQ(printed(Scalar(2.5)), "2.5");
  EXPECT_EQ(printed(Scalar(0.1)), "0.1");
  EXPECT_EQ(printed(Scalar(2.0)), "2");
  EXPECT_EQ(printed(Scalar(-std::numeric_limits<double>::infinity())), "-inf");
  EXPECT_EQ(printed(Scalar(3)), "3");
  EXPECT_EQ(printed(Scalar(int8_t{-7})), "-7");
  EXPECT_EQ(printed(Scalar(std::numeric_limits<int64_t>::max())), "9223372036854775807");
  EXPECT_EQ(printed(Scalar(true)), "true");
  EXPECT_EQ(printed(Scalar(false)), "false");
}

TEST(Print, SliceInPythonSpelling) {
  EXPECT_EQ(printed(Slice()), ":");
  EXPECT_EQ(printed(Slice::all()), ":");
  EXPECT_EQ(printed(Slice(1, 4, 2)), "1:4:2");
  EXPECT_EQ(printed(Slice(1, 4)), "1:4");
  EXPECT_EQ(printed(Slice::from(2)), "2:");
  EXPECT_EQ(printed(Slice::to(-1)), ":-1");
  EXPECT_EQ(printed(Slice(std::nullopt, std::nullopt, -1)), "::-1");
  EXPECT_EQ(printed(Slice(3)), "3:4");   // the single index 3
  EXPECT_EQ(printed(Slice(-1)), "-1:");  // the last index
}

TEST(Print, SlicedPoolReport) {
  const SlicedPoolReport report{
      .page_size = 2 * 1024 * 1024, .pages = 3, .pages_peak = 4, .largest_alloc = 512 * 1024};
  EXPECT_EQ(printed(report),
            "SlicedPoolReport { page_size: 2.0 MiB, pages: 3, pages_peak: 4, largest_alloc: 512.0 "
            "KiB }");
}

TEST(Print, MemoryPoolUsage) {
  const MemoryPoolUsage usage{.number_allocs = 3,
                              .bytes_in_use = 1536,
                              .bytes_padding = 24,
                              .bytes_reserved = uint64_t{3} << 30};
  EXPECT_EQ(printed(usage),
            "MemoryPoolUsage { number_allocs: 3, bytes_in_use: 1.5 KiB, bytes_padding: 24 B, "
            "bytes_reserved: 3.0 GiB }");
}

TEST(Print, ByteUnitBoundaries) {
  const auto reserved = [](uint64_t bytes) {
    return printed(MemoryPoolUsage{.bytes_reserved = bytes});
  };
  EXPECT_NE(reserved(1023).find("bytes_reserved: 1023 B }"), std::string::npos);
  EXPECT_NE(reserved(1024).find("bytes_reserved: 1.0 KiB }"), std::string::npos);
  EXPECT_NE(reserved(0).find("bytes_reserved: 0 B }"), std::string::npos);
  // 2^64 - 1 bytes is 16 EiB (rounded), the largest unit.
  EXPECT_NE(reserved(std::numeric_limits<uint64_t>::max()).find("bytes_reserved: 16.0 EiB }"),
            std::string::npos);
}

TEST(Print, DeviceSettings) {
  EXPECT_EQ(printed(DeviceSettings{}),
            "DeviceSettings { float_dtype: f32, int_dtype: i64, bool_dtype: bool, "
            "f32_matmul_precision: highest, graph_replay: on }");
  EXPECT_EQ(printed(DeviceSettings{.float_dtype = FloatDType::BF16, .int_dtype = IntDType::U8}),
            "DeviceSettings { float_dtype: bf16, int_dtype: u8, bool_dtype: bool, "
            "f32_matmul_precision: highest, graph_replay: on }");
}

}  // namespace
}  // namespace ember
