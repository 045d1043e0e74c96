// Corrupt safetensors files: each defect gives InvalidArgument naming the file and the tensor or
// field, never a crash or a huge allocation. The files are built by hand (size, header, buffer).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "ember/record/safetensors.h"
#include "record_test_util.h"

namespace ember::record {
namespace {

using test::Bytes;

/// The message of loading file (written to a scratch file so the path shows in the message).
std::string load_error(const Bytes& file) {
  test::TempDir dir;
  const auto path = dir / "corrupt.safetensors";
  test::write_bytes(path, file);
  const std::string message = test::invalid_argument_message([&] { load_safetensors(path); });
  test::expect_mentions(message, {"[load_safetensors] ", "corrupt.safetensors: "});
  return message;
}

/// The message of loading a file with header and a zero-filled buffer of buffer_size bytes.
std::string header_error(const std::string& header, std::size_t buffer_size) {
  return load_error(test::file_of(header, buffer_size));
}

/// A header entry.
std::string entry(const std::string& name, const std::string& dtype, const std::string& shape,
                  const std::string& offsets) {
  return "\"" + name + R"(":{"dtype":)" + dtype + R"(,"shape":)" + shape + R"(,"data_offsets":)" +
         offsets + "}";
}

TEST(SafetensorsCorrupt, FileShorterThanTheHeaderSize) {
  test::expect_mentions(load_error(test::bytes_of({1, 0, 0})), {"3 bytes", "shorter than"});
  test::expect_mentions(load_error({}), {"0 bytes"});
}

TEST(SafetensorsCorrupt, HeaderSizeLargerThanTheFile) {
  test::expect_mentions(load_error(test::file_with_size(1000, "{}", {})),
                        {"header size 1000", "larger than the 2 bytes"});
  // 2^64 - 1: no allocation of that size is attempted.
  test::expect_mentions(load_error(test::file_with_size(UINT64_MAX, "{}", {})),
                        {"header size 18446744073709551615"});
}

TEST(SafetensorsCorrupt, HeaderThatIsNotJson) {
  test::expect_mentions(header_error(R"({"a":)", 0), {"not valid JSON"});
  test::expect_mentions(header_error("{} trailing", 0), {"not valid JSON"});
  test::expect_mentions(header_error("{\"\xff\":1}", 0), {"not valid JSON"});  // not UTF-8
}

TEST(SafetensorsCorrupt, HeaderThatIsNotAnObject) {
  for (const char* header : {"[1, 2]", "\"text\"", "  {}", "7"})
    test::expect_mentions(header_error(header, 0), {"not a JSON object"});
}

TEST(SafetensorsCorrupt, DeeplyNestedHeaderIsRefusedWithoutRecursing) {
  const std::string nested = std::string(100000, '[') + std::string(100000, ']');
  test::expect_mentions(header_error(R"({"w":)" + nested + "}", 0),
                        {"tensor 'w'", "an array of 1", "not an object"});
}

TEST(SafetensorsCorrupt, UnknownDtype) {
  test::expect_mentions(header_error("{" + entry("w", "\"F8_E4M3\"", "[1]", "[0,1]") + "}", 1),
                        {"tensor 'w'", "unknown dtype \"F8_E4M3\""});
  test::expect_mentions(header_error("{" + entry("w", "\"f32\"", "[1]", "[0,4]") + "}", 4),
                        {"tensor 'w'", "unknown dtype \"f32\""});
  test::expect_mentions(header_error("{" + entry("w", "4", "[1]", "[0,4]") + "}", 4),
                        {"tensor 'w'", "dtype 4, not a string"});
}

TEST(SafetensorsCorrupt, NegativeOrNonIntegerShape) {
  for (const char* shape : {"[2,-1]", "[1.5]", "[\"2\"]", "[9223372036854775808]", "[[1]]"}) {
    test::expect_mentions(header_error("{" + entry("w", "\"F32\"", shape, "[0,4]") + "}", 4),
                          {"tensor 'w'", "not an integer in [0, 2^63)"});
  }
  test::expect_mentions(header_error("{" + entry("w", "\"F32\"", "3", "[0,12]") + "}", 12),
                        {"tensor 'w'", "shape 3, not an array"});
}

TEST(SafetensorsCorrupt, ShapeWhoseSizeOverflows) {
  // 2^32 * 2^32 * 2 elements: more than 2^63, though each dim is fine.
  test::expect_mentions(
      header_error("{" + entry("w", "\"U8\"", "[4294967296,4294967296,2]", "[0,0]") + "}", 0),
      {"tensor 'w'", "too many elements to count in 64 bits"});
  // 2^62 elements of 8 bytes.
  test::expect_mentions(
      header_error("{" + entry("w", "\"F64\"", "[4611686018427387904]", "[0,0]") + "}", 0),
      {"tensor 'w'", "too many bytes to count in 64 bits"});
  // A huge dim times 0 is an empty tensor, which the format allows.
  const std::string empty = "{" + entry("w", "\"F32\"", "[9223372036854775807,0]", "[0,0]") + "}";
  EXPECT_EQ(deserialize_safetensors(test::file_of(empty, 0)).tensors[0].data.num_elements(), 0);
}

TEST(SafetensorsCorrupt, OffsetsThatDoNotMatchShapeAndDtype) {
  test::expect_mentions(header_error("{" + entry("w", "\"F32\"", "[2]", "[0,4]") + "}", 4),
                        {"tensor 'w'", "holding 4 bytes", "[2] of F32 takes 8"});
}

TEST(SafetensorsCorrupt, OffsetsOutsideTheDataBuffer) {
  test::expect_mentions(header_error("{" + entry("w", "\"F32\"", "[2]", "[0,8]") + "}", 4),
                        {"tensor 'w'", "[0, 8]", "past the end of the data buffer (4 bytes)"});
  test::expect_mentions(
      header_error(
          "{" + entry("w", "\"U8\"", "[1]", "[18446744073709551614,18446744073709551615]") + "}",
          1),
      {"tensor 'w'", "past the end"});
}

TEST(SafetensorsCorrupt, OffsetsThatAreNotTwoIncreasingIntegers) {
  for (const char* offsets : {"[4,0]", "[0]", "[0,4,8]", "[\"0\",4]", "[-4,0]", "{}", "[0,4.0]"}) {
    test::expect_mentions(header_error("{" + entry("w", "\"F32\"", "[1]", offsets) + "}", 4),
                          {"tensor 'w'", "not [begin, end]"});
  }
}

TEST(SafetensorsCorrupt, OverlappingTensors) {
  const std::string header = "{" + entry("a", "\"F32\"", "[2]", "[0,8]") + "," +
                             entry("b", "\"F32\"", "[2]", "[4,12]") + "}";
  test::expect_mentions(header_error(header, 12), {"tensor 'b'", "overlaps tensor 'a'"});
}

TEST(SafetensorsCorrupt, GapsInTheDataBuffer) {
  const std::string inner_gap = "{" + entry("a", "\"F32\"", "[1]", "[0,4]") + "," +
                                entry("b", "\"F32\"", "[1]", "[8,12]") + "}";
  test::expect_mentions(header_error(inner_gap, 12), {"bytes 4 to 8", "gap before tensor 'b'"});
  test::expect_mentions(header_error("{" + entry("a", "\"F32\"", "[1]", "[0,4]") + "}", 8),
                        {"bytes 4 to 8", "belong to no tensor"});
  test::expect_mentions(header_error("{}", 3), {"bytes 0 to 3", "belong to no tensor"});
}

TEST(SafetensorsCorrupt, DuplicateNamesOrFields) {
  const std::string twice =
      "{" + entry("w", "\"U8\"", "[1]", "[0,1]") + "," + entry("w", "\"U8\"", "[1]", "[1,2]") + "}";
  test::expect_mentions(header_error(twice, 2), {"key 'w' twice"});
  test::expect_mentions(
      header_error(R"({"w":{"dtype":"U8","dtype":"I8","shape":[1],"data_offsets":[0,1]}})", 1),
      {"key 'dtype' twice"});
}

TEST(SafetensorsCorrupt, EntriesThatLackAFieldOrAreNotObjects) {
  test::expect_mentions(header_error(R"({"w":{"dtype":"U8","data_offsets":[0,1]}})", 1),
                        {"tensor 'w'", "no \"shape\""});
  test::expect_mentions(header_error(R"({"w":{"shape":[1],"data_offsets":[0,1]}})", 1),
                        {"tensor 'w'", "no \"dtype\""});
  test::expect_mentions(header_error(R"({"w":{"dtype":"U8","shape":[1]}})", 1),
                        {"tensor 'w'", "no \"data_offsets\""});
  test::expect_mentions(header_error(R"({"w":5})", 0), {"tensor 'w' is 5, not an object"});
}

TEST(SafetensorsCorrupt, MetadataThatIsNotAnObjectOfStrings) {
  test::expect_mentions(header_error(R"({"__metadata__":{"epoch":3}})", 0),
                        {"\"__metadata__\" entry 'epoch' is 3, not a string"});
  test::expect_mentions(header_error(R"({"__metadata__":"pt"})", 0),
                        {"\"__metadata__\" is not an object"});
}

TEST(SafetensorsCorrupt, BoolBytesOtherThanZeroAndOne) {
  const std::string header = "{" + entry("mask", "\"BOOL\"", "[2]", "[0,2]") + "}";
  test::expect_mentions(
      load_error(test::file_with_size(header.size(), header, test::bytes_of({1, 2}))),
      {"tensor 'mask'", "bool byte 1 is 2"});
}

TEST(SafetensorsCorrupt, MissingFileOrADirectory) {
  test::TempDir dir;
  test::expect_mentions(test::invalid_argument_message([&] { load_safetensors(dir / "none"); }),
                        {"[load_safetensors] ", "none: cannot open"});
  test::expect_mentions(test::invalid_argument_message([&] { load_safetensors(dir.path()); }),
                        {"[load_safetensors] ", "not a regular file"});
}

/// Every prefix of a valid file, and the valid file with any one byte replaced, loads or throws
/// InvalidArgument: nothing else (the sanitizer builds also watch for out-of-bounds reads).
TEST(SafetensorsCorrupt, TruncatedOrFlippedFilesNeverCrash) {
  const Bytes valid = test::read_bytes(test::fixture("mlp.safetensors"));
  ASSERT_NO_THROW(deserialize_safetensors(valid));
  int refused = 0;
  const auto try_load = [&](const Bytes& file) {
    try {
      deserialize_safetensors(file, "fuzzed");
    } catch (const InvalidArgument&) {
      ++refused;
    }
  };
  for (std::size_t size = 0; size < valid.size(); ++size)
    try_load(Bytes(valid.begin(), valid.begin() + static_cast<std::ptrdiff_t>(size)));
  EXPECT_EQ(refused, static_cast<int>(valid.size()));  // every strict prefix is refused
  for (std::size_t i = 0; i < valid.size(); ++i) {
    for (std::byte value : {std::byte{0x00}, std::byte{0x7b}, std::byte{0xff}}) {
      Bytes flipped = valid;
      flipped[i] = value;
      try_load(flipped);
    }
  }
}

}  // namespace
}  // namespace ember::record
