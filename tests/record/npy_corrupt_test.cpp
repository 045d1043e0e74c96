// Corrupt .npy files: each defect gives InvalidArgument naming the file and the field, never a
// crash or an allocation sized by a corrupt field. The files are built by hand.
#include <gtest/gtest.h>

#include <string>

#include "ember/record/numpy.h"
#include "numpy_test_util.h"

namespace ember::record {
namespace {

using test::Bytes;
using test::bytes_of;
using test::npy_file;
using test::padded_header;

/// The message of loading file, written to a scratch file so that its path shows.
std::string npy_error(const Bytes& file) {
  test::TempDir dir;
  const auto path = dir / "corrupt.npy";
  test::write_bytes(path, file);
  const std::string message = test::invalid_argument_message([&] { load_npy(path); });
  test::expect_mentions(message, {"[load_npy] ", "corrupt.npy: "});
  return message;
}

/// The message of a file with the dict header (padded) and data.
std::string dict_error(const std::string& dict, const Bytes& data = {}) {
  return npy_error(npy_file(padded_header(dict), data));
}

std::string with_shape(const std::string& shape, const std::string& descr = "<f4") {
  return "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
}

TEST(NpyCorrupt, BytesSourceIsNamed) {
  test::expect_mentions(test::invalid_argument_message([] { deserialize_npy(Bytes{}); }),
                        {"[load_npy] npy bytes: ", "0 bytes"});
}

TEST(NpyCorrupt, Truncated) {
  const Bytes good = serialize_npy(TensorData(std::vector<float>{1, 2, 3}, Shape{3}));
  // Every prefix of a valid file is refused.
  for (std::size_t size = 0; size < good.size(); ++size) {
    const Bytes prefix(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(size));
    EXPECT_THROW(deserialize_npy(prefix), InvalidArgument) << size;
  }
  test::expect_mentions(npy_error(Bytes(good.begin(), good.end() - 1)),
                        {"data: 11 bytes", "needs 12", "truncated"});
  test::expect_mentions(npy_error(Bytes(good.begin(), good.begin() + 9)), {"prefix"});
  test::expect_mentions(npy_error(Bytes(good.begin(), good.begin() + 20)), {"header length 118"});
}

TEST(NpyCorrupt, TrailingBytes) {
  test::expect_mentions(dict_error(with_shape("(1,)"), bytes_of({0, 0, 128, 63, 9})),
                        {"1 trailing bytes"});
}

TEST(NpyCorrupt, BadMagicAndVersion) {
  Bytes file = serialize_npy(TensorData(std::vector<float>{1}, Shape{1}));
  Bytes bad_magic = file;
  bad_magic[1] = std::byte{'n'};
  test::expect_mentions(npy_error(bad_magic), {"magic"});
  for (const auto& [major, minor] : {std::pair{0, 0}, {4, 0}, {1, 1}}) {
    Bytes bad_version = file;
    bad_version[6] = static_cast<std::byte>(major);
    bad_version[7] = static_cast<std::byte>(minor);
    test::expect_mentions(npy_error(bad_version), {"version"});
  }
}

TEST(NpyCorrupt, BadDescr) {
  for (const char* descr : {"<f16", "<c8", "|f4", "f4", "<U3", "O", "<b2", "", "<f4 "})
    test::expect_mentions(dict_error(with_shape("(1,)", descr)), {"'descr'", descr});
  // A structured dtype's descr is a list.
  test::expect_mentions(
      dict_error("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }"), {"descr"});
}

TEST(NpyCorrupt, BadDictSyntax) {
  test::expect_mentions(dict_error("'descr': '<f4', 'fortran_order': False, 'shape': (1,), }"),
                        {"header", "'{'"});
  test::expect_mentions(dict_error("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), "),
                        {"header"});
  test::expect_mentions(dict_error("{'descr': '<f4' 'fortran_order': False, 'shape': (1,), }"),
                        {"header", "','"});
  test::expect_mentions(dict_error("{'descr': '<f4', 'fortran_order': false, 'shape': (1,), }"),
                        {"'fortran_order'", "True or False"});
  test::expect_mentions(dict_error("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), } x"),
                        {"after the dict"});
  test::expect_mentions(dict_error("{'descr: '<f4', 'fortran_order': False, 'shape': (1,), }"),
                        {"header"});
  test::expect_mentions(dict_error("{'descr': '<f\\x34', 'fortran_order': False, 'shape': (1,), }"),
                        {"escape"});
}

TEST(NpyCorrupt, MissingRepeatedOrUnknownKeys) {
  test::expect_mentions(dict_error("{'descr': '<f4', 'shape': (1,), }"), {"no 'fortran_order'"});
  test::expect_mentions(dict_error("{'fortran_order': False, 'shape': (1,), }"), {"no 'descr'"});
  test::expect_mentions(dict_error("{'descr': '<f4', 'fortran_order': False, }"), {"no 'shape'"});
  test::expect_mentions(
      dict_error("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,), }"),
      {"'descr' appears twice"});
  test::expect_mentions(
      dict_error("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'extra': 1, }"),
      {"unexpected key 'extra'"});
}

TEST(NpyCorrupt, BadShape) {
  test::expect_mentions(dict_error(with_shape("(-1,)")), {"'shape'", "negative"});
  test::expect_mentions(dict_error(with_shape("(3)")), {"'shape'", "not a tuple"});
  test::expect_mentions(dict_error(with_shape("[3]")), {"'shape'"});
  test::expect_mentions(dict_error(with_shape("(2, x)")), {"'shape'", "integer"});
  test::expect_mentions(dict_error(with_shape("(2 3)")), {"'shape'"});
  test::expect_mentions(dict_error(with_shape("(1.5,)")), {"'shape'"});
  test::expect_mentions(dict_error(with_shape("(99999999999999999999,)")),
                        {"'shape'", "exceeds int64"});
}

TEST(NpyCorrupt, HugeShapeAllocatesNothing) {
  // The element count or byte size overflows int64: refused before any allocation.
  test::expect_mentions(dict_error(with_shape("(4294967296, 4294967296)")),
                        {"'shape'", "too large"});
  test::expect_mentions(dict_error(with_shape("(2305843009213693952,)")), {"too large"});
  // Fits in int64 but far beyond the file: refused as short data.
  test::expect_mentions(dict_error(with_shape("(1000000000000,)")),
                        {"data: 0 bytes", "needs 4000000000000"});
  // Empty, but a stride overflows.
  test::expect_mentions(dict_error(with_shape("(0, 4294967296, 4294967296)")), {"too large"});
}

TEST(NpyCorrupt, BoolBytesOtherThanZeroOrOne) {
  test::expect_mentions(dict_error(with_shape("(2,)", "|b1"), bytes_of({1, 2})),
                        {"bool element 1", "byte 2"});
}

}  // namespace
}  // namespace ember::record
