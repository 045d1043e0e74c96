// read_idx and decode_idx on missing, truncated, corrupt and lying files: an InvalidArgument
// naming the file and the problem, never a crash or a huge allocation; encode_idx and write_idx
// on what IDX cannot hold or a file that cannot be written.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "data_test_util.h"
#include "ember/data/idx.h"

namespace ember::data {
namespace {

using test::Bytes;
using test::idx_bytes;
using test::invalid_argument_message;

/// The message read_idx throws for path.
std::string idx_error(const std::filesystem::path& path) {
  return invalid_argument_message([&] { read_idx(path); });
}

/// The message read_idx throws for bytes stored plain, and checks that the gzip copy of the
/// same bytes gives the same problem.
std::string plain_and_gzip_error(const test::TempDir& dir, const Bytes& bytes) {
  const std::filesystem::path plain = test::write_plain(dir / "file", bytes);
  const std::filesystem::path gz = test::write_gzip(dir / "file.gz", bytes);
  const std::string prefix = "[read_idx] " + plain.string() + ": ";
  const std::string message = idx_error(plain);
  EXPECT_EQ(message.rfind(prefix, 0), 0u) << message;
  EXPECT_EQ(idx_error(gz), "[read_idx] " + gz.string() + ": " + message.substr(prefix.size()));
  return message.substr(prefix.size());
}

/// 1000 bytes that deflate cannot shrink much, so that cuts land inside the compressed data.
Bytes noisy_payload() {
  Bytes payload(1000);
  uint32_t x = 12345;
  for (uint8_t& b : payload) {
    x = x * 1103515245 + 12345;
    b = static_cast<uint8_t>(x >> 16);
  }
  return payload;
}

TEST(ReadIdxErrors, MissingFile) {
  const test::TempDir dir;
  EXPECT_EQ(idx_error(dir / "absent"),
            "[read_idx] " + (dir / "absent").string() + ": cannot open: no such file");
}

TEST(ReadIdxErrors, Directory) {
  const test::TempDir dir;
  EXPECT_EQ(idx_error(dir.path()), "[read_idx] " + dir.path().string() + ": not a regular file");
}

TEST(ReadIdxErrors, TruncatedMagic) {
  const test::TempDir dir;
  EXPECT_EQ(plain_and_gzip_error(dir, {}),
            "truncated header: 0 bytes, fewer than the 4 magic bytes");
  EXPECT_EQ(plain_and_gzip_error(dir, {0, 0, 8}),
            "truncated header: 3 bytes, fewer than the 4 magic bytes");
}

TEST(ReadIdxErrors, BadMagic) {
  const test::TempDir dir;
  EXPECT_EQ(plain_and_gzip_error(dir, {1, 0, 8, 1, 0, 0, 0, 1, 5}),
            "bad magic 0x01 0x00 (an IDX file starts with two zero bytes)");
}

TEST(ReadIdxErrors, UnknownTypeCode) {
  const test::TempDir dir;
  EXPECT_EQ(plain_and_gzip_error(dir, idx_bytes(0x0A, {1}, {5})), "unknown element type code 0x0a");
}

TEST(ReadIdxErrors, TruncatedDims) {
  const test::TempDir dir;
  EXPECT_EQ(plain_and_gzip_error(dir, {0, 0, 8, 3, 0, 0, 0, 2, 0, 0, 0}),
            "truncated header: 3 dims announced but only 7 of their 12 bytes present");
}

TEST(ReadIdxErrors, PayloadShorterOrLongerThanTheDims) {
  const test::TempDir dir;
  EXPECT_EQ(plain_and_gzip_error(dir, idx_bytes(0x08, {2, 3}, {1, 2, 3, 4, 5})),
            "dims [2, 3] of u8 need 6 payload bytes but the file holds 5");
  EXPECT_EQ(plain_and_gzip_error(dir, idx_bytes(0x08, {2, 3}, {1, 2, 3, 4, 5, 6, 7})),
            "dims [2, 3] of u8 need 6 payload bytes but the file holds 7");
  EXPECT_EQ(plain_and_gzip_error(dir, idx_bytes(0x0C, {2}, {0, 0, 0, 1, 0, 0, 0})),
            "dims [2] of i32 need 8 payload bytes but the file holds 7");
}

TEST(ReadIdxErrors, DimsWhoseProductOverflows) {
  const test::TempDir dir;
  EXPECT_EQ(plain_and_gzip_error(dir, idx_bytes(0x0E, {0xFFFFFFFF, 0xFFFFFFFF}, {})),
            "dims [4294967295, 4294967295] of f64 overflow 64-bit sizes");
  // 2^63 bytes: one more than int64 holds.
  EXPECT_EQ(plain_and_gzip_error(dir, idx_bytes(0x08, {0x80000000, 0x10000, 0x10000}, {})),
            "dims [2147483648, 65536, 65536] of u8 overflow 64-bit sizes");
  // An empty tensor still needs strides, which count its zero dims as 1.
  EXPECT_EQ(plain_and_gzip_error(dir, idx_bytes(0x08, {0, 0xFFFFFFFF, 0xFFFFFFFF}, {})),
            "dims [0, 4294967295, 4294967295] of u8 overflow 64-bit sizes");
}

TEST(ReadIdxErrors, HugeClaimInAPlainFileIsRefusedBeforeAllocating) {
  const test::TempDir dir;
  const std::filesystem::path path =
      test::write_plain(dir / "liar", idx_bytes(0x0D, {0xFFFFFFFF, 0xFFFF}, {1, 2, 3, 4}));
  EXPECT_EQ(idx_error(path), "[read_idx] " + path.string() +
                                 ": dims [4294967295, 65535] of f32 need 1125882726711300 "
                                 "payload bytes but the file holds 4");
}

TEST(ReadIdxErrors, HugeClaimInAGzipFileIsRefusedBeforeAllocating) {
  const test::TempDir dir;
  const std::filesystem::path path =
      test::write_gzip(dir / "liar.gz", idx_bytes(0x0D, {0xFFFFFFFF, 0xFFFF}, {1, 2, 3, 4}));
  const std::string size = std::to_string(std::filesystem::file_size(path));
  EXPECT_EQ(idx_error(path), "[read_idx] " + path.string() +
                                 ": dims [4294967295, 65535] of f32 need 1125882726711300 "
                                 "payload bytes, more than a gzip file of " +
                                 size + " bytes can hold (at most 1032 times its size)");
}

TEST(ReadIdxErrors, TruncatedGzip) {
  const test::TempDir dir;
  const Bytes gz = test::gzip(idx_bytes(0x08, {1000}, noisy_payload()));
  // Cut inside the compressed data, and just before the 8-byte trailer (CRC and size).
  for (std::size_t keep : {gz.size() / 2, gz.size() - 8}) {
    const std::filesystem::path path =
        test::write_plain(dir / "cut.gz", Bytes(gz.begin(), gz.begin() + keep));
    EXPECT_EQ(idx_error(path), "[read_idx] " + path.string() + ": gzip stream is truncated")
        << "keeping " << keep << " of " << gz.size() << " bytes";
  }
}

TEST(ReadIdxErrors, CorruptGzip) {
  const test::TempDir dir;
  const Bytes gz = test::gzip(idx_bytes(0x08, {1000}, noisy_payload()));
  Bytes bad_crc = gz;
  bad_crc[gz.size() - 8] ^= 0xFF;  // the trailer starts with the CRC-32 of the data
  const std::filesystem::path crc_path = test::write_plain(dir / "crc.gz", bad_crc);
  EXPECT_EQ(idx_error(crc_path),
            "[read_idx] " + crc_path.string() + ": gzip stream is corrupt (incorrect data check)");

  Bytes bad_data = gz;
  bad_data[20] ^= 0xFF;
  const std::filesystem::path data_path = test::write_plain(dir / "data.gz", bad_data);
  const std::string prefix = "[read_idx] " + data_path.string() + ": gzip stream is ";
  EXPECT_EQ(idx_error(data_path).rfind(prefix, 0), 0u) << idx_error(data_path);
}

TEST(ReadIdxErrors, GzipFollowedByTrailingGarbage) {
  const test::TempDir dir;
  const Bytes gz = test::gzip(idx_bytes(0x08, {3}, {1, 2, 3}));
  // Bytes that are not a gzip member: text, zero padding, and gzip's first magic byte alone.
  for (const Bytes& garbage : {Bytes{'j', 'u', 'n', 'k'}, Bytes(512, 0), Bytes{0x1F}}) {
    Bytes file = gz;
    file.insert(file.end(), garbage.begin(), garbage.end());
    const std::filesystem::path path = test::write_plain(dir / "trailing.gz", file);
    EXPECT_EQ(idx_error(path), "[read_idx] " + path.string() + ": trailing garbage: " +
                                   std::to_string(garbage.size()) + " bytes after the gzip stream");
  }
}

TEST(ReadIdxErrors, ConcatenatedGzipMembersAreOneStream) {
  // gzip(1) reads concatenated members as the concatenation of their data, so this is valid.
  const test::TempDir dir;
  const Bytes file = idx_bytes(0x08, {2, 2}, {1, 2, 3, 4});
  Bytes members = test::gzip(Bytes(file.begin(), file.begin() + 7));
  const Bytes second = test::gzip(Bytes(file.begin() + 7, file.end()));
  members.insert(members.end(), second.begin(), second.end());
  EXPECT_EQ(read_idx(test::write_plain(dir / "members.gz", members)),
            TensorData(std::vector<uint8_t>{1, 2, 3, 4}, Shape{2, 2}));
}

TEST(ReadIdxErrors, DecodeIdxNamesItsSource) {
  EXPECT_EQ(invalid_argument_message([] { decode_idx({}, "memory"); }),
            "[read_idx] memory: truncated header: 0 bytes, fewer than the 4 magic bytes");
}

TEST(EncodeIdxErrors, DTypesIdxCannotHold) {
  constexpr DType kIdxDTypes[] = {DType::U8,  DType::I8,  DType::I16,
                                  DType::I32, DType::F32, DType::F64};
  const test::TempDir dir;
  for (const DType dtype : kAllDTypes) {
    if (std::find(std::begin(kIdxDTypes), std::end(kIdxDTypes), dtype) != std::end(kIdxDTypes))
      continue;
    const TensorData data = TensorData::zeros(Shape{2}, dtype);
    std::ostringstream problem;
    problem << "dtype " << dtype
            << " has no IDX element type (IDX holds u8, i8, i16, i32, f32, f64)";
    EXPECT_EQ(invalid_argument_message([&] { encode_idx(data, false); }),
              "[encode_idx] " + problem.str());
    const std::filesystem::path path = dir / "refused";
    EXPECT_EQ(invalid_argument_message([&] { write_idx(path, data, true); }),
              "[write_idx] " + path.string() + ": " + problem.str());
    EXPECT_FALSE(std::filesystem::exists(path));
  }
}

TEST(EncodeIdxErrors, ShapesIdxCannotHold) {
  // Empty tensors, so that the shapes need no memory.
  const TensorData wide = TensorData::zeros(Shape{0, int64_t{1} << 32}, DType::U8);
  EXPECT_EQ(invalid_argument_message([&] { encode_idx(wide, true); }),
            "[encode_idx] shape [0, 4294967296]: dim 4294967296 is over IDX's 32-bit limit");
  std::vector<int64_t> dims(256, 1);
  dims[0] = 0;
  const std::string deep = invalid_argument_message(
      [&] { encode_idx(TensorData::zeros(Shape(dims), DType::U8), false); });
  EXPECT_TRUE(deep.starts_with("[encode_idx] shape [0, 1, 1, ")) << deep;
  EXPECT_TRUE(deep.ends_with(", 1] has 256 dims, more than IDX's 255")) << deep;
}

TEST(WriteIdxErrors, FileThatCannotBeWritten) {
  const test::TempDir dir;
  const TensorData data(std::vector<uint8_t>{1}, Shape{1});
  const std::filesystem::path path = dir / "absent" / "file";
  EXPECT_EQ(
      invalid_argument_message([&] { write_idx(path, data, false); }),
      "[write_idx] " + path.string() + ": cannot open for writing: No such file or directory");
  EXPECT_EQ(invalid_argument_message([&] { write_idx(dir.path(), data, false); }),
            "[write_idx] " + dir.path().string() + ": cannot open for writing: Is a directory");
}

}  // namespace
}  // namespace ember::data
