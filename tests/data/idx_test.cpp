// read_idx and decode_idx on well-formed files, plain and gzip, and encode_idx and write_idx
// writing them: every element type, big-endian values written by hand, shapes of every rank.
#include "ember/data/idx.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "data_test_util.h"

namespace ember::data {
namespace {

using test::Bytes;
using test::idx_bytes;

struct IdxCase {
  std::string name;
  Bytes file;
  TensorData expected;
};

std::vector<IdxCase> cases() {
  return {
      {"u8", idx_bytes(0x08, {2, 3}, {0, 1, 2, 3, 254, 255}),
       TensorData(std::vector<uint8_t>{0, 1, 2, 3, 254, 255}, Shape{2, 3})},
      {"i8", idx_bytes(0x09, {3}, {0xFF, 0x80, 0x7F}),
       TensorData(std::vector<int8_t>{-1, -128, 127}, Shape{3})},
      {"i16", idx_bytes(0x0B, {2}, {0xFF, 0xFE, 0x01, 0x00}),
       TensorData(std::vector<int16_t>{-2, 256}, Shape{2})},
      {"i32", idx_bytes(0x0C, {2, 1}, {0x01, 0x02, 0x03, 0x04, 0xFF, 0xFF, 0xFF, 0xFF}),
       TensorData(std::vector<int32_t>{0x01020304, -1}, Shape{2, 1})},
      // 0x3FC00000 is 1.5f; 0xC0490FDB is -pi rounded to float.
      {"f32", idx_bytes(0x0D, {2}, {0x3F, 0xC0, 0x00, 0x00, 0xC0, 0x49, 0x0F, 0xDB}),
       TensorData(std::vector<float>{1.5f, -3.14159274f}, Shape{2})},
      // 0xBFD0000000000000 is -0.25.
      {"f64", idx_bytes(0x0E, {1, 1, 1}, {0xBF, 0xD0, 0, 0, 0, 0, 0, 0}),
       TensorData(std::vector<double>{-0.25}, Shape{1, 1, 1})},
      {"scalar", idx_bytes(0x08, {}, {42}), TensorData(std::vector<uint8_t>{42}, Shape{})},
      {"empty", idx_bytes(0x08, {0, 28}, {}), TensorData(std::vector<uint8_t>{}, Shape{0, 28})},
      {"rank4", idx_bytes(0x08, {1, 2, 1, 2}, {9, 8, 7, 6}),
       TensorData(std::vector<uint8_t>{9, 8, 7, 6}, Shape{1, 2, 1, 2})},
  };
}

TEST(ReadIdx, ReadsPlainFiles) {
  const test::TempDir dir;
  for (const IdxCase& c : cases()) {
    EXPECT_EQ(read_idx(test::write_plain(dir / c.name, c.file)), c.expected) << c.name;
  }
}

TEST(ReadIdx, ReadsGzipFiles) {
  const test::TempDir dir;
  for (const IdxCase& c : cases()) {
    EXPECT_EQ(read_idx(test::write_gzip(dir / (c.name + ".gz"), c.file)), c.expected) << c.name;
  }
}

TEST(ReadIdx, TellsGzipFromPlainByContentNotName) {
  const test::TempDir dir;
  const IdxCase c = cases().front();
  EXPECT_EQ(read_idx(test::write_gzip(dir / "compressed.idx", c.file)), c.expected);
  EXPECT_EQ(read_idx(test::write_plain(dir / "plain.gz", c.file)), c.expected);
}

TEST(ReadIdx, ReadsAPayloadLargerThanItsBuffers) {
  // 300000 bytes: more than zlib's read buffer, exercising the chunked reads.
  constexpr uint32_t kRows = 3000;
  constexpr uint32_t kCols = 100;
  Bytes payload(kRows * kCols);
  for (std::size_t i = 0; i < payload.size(); ++i)
    payload[i] = static_cast<uint8_t>(i * 31 % 251);
  const test::TempDir dir;
  const TensorData expected(std::vector<uint8_t>(payload.begin(), payload.end()),
                            Shape{kRows, kCols});
  const Bytes file = idx_bytes(0x08, {kRows, kCols}, payload);
  EXPECT_EQ(read_idx(test::write_plain(dir / "big", file)), expected);
  EXPECT_EQ(read_idx(test::write_gzip(dir / "big.gz", file)), expected);
}

TEST(EncodeIdx, WritesEachCaseByteForByte) {
  for (const IdxCase& c : cases()) {
    EXPECT_EQ(test::to_bytes(encode_idx(c.expected, false)), c.file) << c.name;
  }
}

TEST(EncodeIdx, DecodesBackPlainAndGzip) {
  for (const IdxCase& c : cases()) {
    for (const bool gzip : {false, true}) {
      EXPECT_EQ(decode_idx(encode_idx(c.expected, gzip), c.name), c.expected)
          << c.name << (gzip ? " gzip" : " plain");
    }
  }
}

TEST(WriteIdx, WritesFilesThatZlibAndReadIdxRead) {
  const test::TempDir dir;
  for (const IdxCase& c : cases()) {
    const std::filesystem::path plain = dir / c.name;
    const std::filesystem::path gz = dir / (c.name + ".gz");
    write_idx(plain, c.expected, false);
    write_idx(gz, c.expected, true);
    EXPECT_EQ(test::read_plain(plain), c.file) << c.name;
    EXPECT_EQ(test::read_gzip(gz), c.file) << c.name;
    EXPECT_EQ(read_idx(plain), c.expected) << c.name;
    EXPECT_EQ(read_idx(gz), c.expected) << c.name;
  }
}

TEST(WriteIdx, ReplacesAnExistingFile) {
  const test::TempDir dir;
  const std::vector<IdxCase> all = cases();
  const std::filesystem::path path = test::write_plain(dir / "file", test::Bytes(100000, 7));
  write_idx(path, all.front().expected, false);
  EXPECT_EQ(test::read_plain(path), all.front().file);
}

}  // namespace
}  // namespace ember::data
