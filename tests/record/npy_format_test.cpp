// .npy files (ember/record/numpy.h): hand-written files of known bytes read to known values, the
// writer's bytes compared with what numpy.save writes (spelled out here), round trips of every
// dtype, Fortran order, big-endian data, scalars and empty arrays.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ember/record/numpy.h"
#include "numpy_test_util.h"

namespace ember::record {
namespace {

using test::Bytes;
using test::bytes_of;
using test::npy_file;
using test::padded_header;

/// values i * 0.5 - 3 converted to dtype.
TensorData npy_values(Shape shape, DType dtype) {
  std::vector<double> values(static_cast<std::size_t>(shape.num_elements()));
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<double>(i) * 0.5 - 3;
  if (dtype == DType::Bool || is_unsigned_int(dtype)) {
    for (std::size_t i = 0; i < values.size(); ++i)
      values[i] = static_cast<double>(i % 3 == 0 ? 1 : i);
  }
  return TensorData(values, std::move(shape), dtype);
}

TEST(NpyFormat, WritesWhatNumpySaveWrites) {
  // np.save of np.array([[1, 2, 3], [4, 5, 6]], dtype='<f4'): version 1.0, header length 118
  // (0x76), the dict, 21 - len("2") spaces of growth room, padding to 128 bytes, a newline.
  const std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }" +
                             std::string(20, ' ') + std::string(38, ' ') + "\n";
  ASSERT_EQ(header.size(), 118u);
  const TensorData data(std::vector<float>{1, 2, 3, 4, 5, 6}, Shape{2, 3});
  Bytes values(data.bytes().begin(), data.bytes().end());
  EXPECT_EQ(serialize_npy(data), npy_file(header, values));
}

TEST(NpyFormat, WritesScalarsAndOneDimShapes) {
  const std::string scalar =
      padded_header("{'descr': '<i8', 'fortran_order': False, 'shape': (), }");
  const TensorData seven(std::vector<int64_t>{7}, Shape{});
  EXPECT_EQ(serialize_npy(seven), npy_file(scalar, bytes_of({7, 0, 0, 0, 0, 0, 0, 0})));
  const std::string one_dim = padded_header(
      "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }" + std::string(20, ' '));
  const TensorData bools(std::vector<bool>{true, false, true}, Shape{3});
  EXPECT_EQ(serialize_npy(bools), npy_file(one_dim, bytes_of({1, 0, 1})));
}

TEST(NpyFormat, ReadsAHandWrittenFile) {
  // '<i2' values 1, -2, 300 of shape (3,), with numpy 1.x's older 16-byte alignment padding.
  const std::string header =
      "{'descr': '<i2', 'fortran_order': False, 'shape': (3,), }            \n";
  ASSERT_EQ((10 + header.size()) % 16, 0u);
  const TensorData read = deserialize_npy(npy_file(header, bytes_of({1, 0, 0xfe, 0xff, 0x2c, 1})));
  EXPECT_EQ(read, TensorData(std::vector<int16_t>{1, -2, 300}, Shape{3}));
}

TEST(NpyFormat, ReadsAnyKeyOrderQuotesAndWhitespace) {
  const std::string header = "{ \"shape\" : ( 2 , ) ,'fortran_order':False,'descr':'|u1'}\n";
  EXPECT_EQ(deserialize_npy(npy_file(header, bytes_of({5, 6}))),
            TensorData(std::vector<uint8_t>{5, 6}, Shape{2}));
}

TEST(NpyFormat, ReadsVersions2And3) {
  const std::string header =
      padded_header("{'descr': '<u2', 'fortran_order': False, 'shape': (2,), }");
  const TensorData expected(std::vector<uint16_t>{1, 512}, Shape{2});
  for (const int major : {2, 3})
    EXPECT_EQ(deserialize_npy(npy_file(header, bytes_of({1, 0, 0, 2}), major)), expected) << major;
}

TEST(NpyFormat, ReadsBigEndian) {
  const std::string header =
      padded_header("{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }");
  EXPECT_EQ(deserialize_npy(npy_file(header, bytes_of({0, 0, 1, 2, 0xff, 0xff, 0xff, 0xfe}))),
            TensorData(std::vector<int32_t>{258, -2}, Shape{2}));
  const std::string f8 = padded_header("{'descr': '>f8', 'fortran_order': False, 'shape': (1,), }");
  // 1.5 is 0x3ff8000000000000.
  EXPECT_EQ(deserialize_npy(npy_file(f8, bytes_of({0x3f, 0xf8, 0, 0, 0, 0, 0, 0}))),
            TensorData(std::vector<double>{1.5}, Shape{1}));
}

TEST(NpyFormat, ReadsFortranOrderIntoRowMajor) {
  // [[0, 1, 2], [3, 4, 5]] stored column by column: 0 3 1 4 2 5.
  const std::string header =
      padded_header("{'descr': '|i1', 'fortran_order': True, 'shape': (2, 3), }");
  EXPECT_EQ(deserialize_npy(npy_file(header, bytes_of({0, 3, 1, 4, 2, 5}))),
            TensorData(std::vector<int8_t>{0, 1, 2, 3, 4, 5}, Shape{2, 3}));
  // Rank 3, shape (2, 2, 2): element (i, j, k) = 4i + 2j + k sits at i + 2j + 4k.
  const std::string cube =
      padded_header("{'descr': '|u1', 'fortran_order': True, 'shape': (2, 2, 2), }");
  EXPECT_EQ(deserialize_npy(npy_file(cube, bytes_of({0, 4, 2, 6, 1, 5, 3, 7}))),
            TensorData(std::vector<uint8_t>{0, 1, 2, 3, 4, 5, 6, 7}, Shape{2, 2, 2}));
}

TEST(NpyFormat, RoundTripsEveryDtypeNumpyHas) {
  for (const DType dtype : kAllDTypes) {
    if (dtype == DType::BF16) continue;
    for (const Shape& shape : {Shape{}, Shape{0}, Shape{5}, Shape{2, 3}, Shape{3, 0, 2}}) {
      const TensorData data = npy_values(shape, dtype);
      EXPECT_EQ(deserialize_npy(serialize_npy(data)), data) << dtype << " " << shape;
    }
  }
}

TEST(NpyFormat, HeaderAlignsTheDataTo64Bytes) {
  for (const Shape& shape : {Shape{}, Shape{1}, Shape{123456789, 0}, Shape{1, 2, 3, 4, 5, 6, 7}}) {
    const Bytes file = serialize_npy(TensorData::zeros(shape, DType::F32));
    const std::size_t data_bytes = static_cast<std::size_t>(shape.num_elements()) * 4;
    EXPECT_EQ((file.size() - data_bytes) % 64, 0u) << shape;
    EXPECT_EQ(file[file.size() - data_bytes - 1], std::byte{'\n'}) << shape;
  }
}

TEST(NpyFormat, LargeHeadersUseVersion2) {
  // 40000 dims of 1: the header exceeds 65535 bytes.
  const Shape shape(std::vector<int64_t>(40000, 1));
  const TensorData data = TensorData::zeros(shape, DType::U8);
  const Bytes file = serialize_npy(data);
  EXPECT_EQ(file[6], std::byte{2});
  EXPECT_EQ(deserialize_npy(file), data);
}

TEST(NpyFormat, Bf16IsRefused) {
  const std::string message = test::invalid_argument_message(
      [] { serialize_npy(TensorData::zeros(Shape{2}, DType::BF16)); });
  test::expect_mentions(message, {"[save_npy]", "bf16", "NumPy"});
  test::TempDir dir;
  test::expect_mentions(test::invalid_argument_message([&] {
                          save_npy(dir / "x.npy", TensorData::zeros(Shape{2}, DType::BF16));
                        }),
                        {"[save_npy]", "x.npy", "bf16"});
  EXPECT_FALSE(std::filesystem::exists(dir / "x.npy"));
}

TEST(NpyFormat, SavesAndLoadsFiles) {
  test::TempDir dir;
  const TensorData data = npy_values(Shape{4, 2}, DType::F64);
  save_npy(dir / "a.npy", data);
  EXPECT_EQ(load_npy(dir / "a.npy"), data);
  test::expect_mentions(test::invalid_argument_message([&] { load_npy(dir / "missing.npy"); }),
                        {"[load_npy]", "missing.npy"});
}

}  // namespace
}  // namespace ember::record
