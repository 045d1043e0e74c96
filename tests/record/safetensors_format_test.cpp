// The safetensors format against its reference: byte vectors from the format's own test suite
// (huggingface/safetensors, tensor.rs: test_serialization, test_empty,
// test_serialization_forced_alignement) and files written by the Python package
// (fixtures/, by generate.py).
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "ember/record/safetensors.h"
#include "record_test_util.h"

namespace ember::record {
namespace {

using test::Bytes;
using Metadata = std::map<std::string, std::string>;

/// values as their little-endian bytes.
template <typename T>
Bytes raw_bytes(const std::vector<T>& values) {
  Bytes bytes(values.size() * sizeof(T));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

std::vector<std::string> names_in_order(const Record& record) {
  std::vector<std::string> names;
  for (const NamedData& tensor : record.tensors)
    names.push_back(tensor.name);
  return names;
}

TEST(SafetensorsFormat, WritesTheReferenceBytes) {
  const std::string header = R"({"attn.0":{"dtype":"F32","shape":[1,2,3],"data_offsets":[0,24]}})";
  ASSERT_EQ(header.size(), 64u);  // a multiple of 8: no padding
  const std::vector<float> values = {0, 1, 2, 3, 4, 5};
  const Record record{{{"attn.0", TensorData(values, Shape{1, 2, 3})}}, {}};
  EXPECT_EQ(serialize_safetensors(record), test::file_with_size(64, header, raw_bytes(values)));
}

TEST(SafetensorsFormat, PadsTheHeaderWithSpacesToAMultipleOfEight) {
  const std::string header = R"({"attn0":{"dtype":"F32","shape":[1,1,2,3],"data_offsets":[0,24]}})";
  ASSERT_EQ(header.size(), 65u);
  const std::vector<float> values = {0, 1, 2, 3, 4, 5};
  const Record record{{{"attn0", TensorData(values, Shape{1, 1, 2, 3})}}, {}};
  EXPECT_EQ(serialize_safetensors(record),
            test::file_with_size(72, header + std::string(7, ' '), raw_bytes(values)));
}

TEST(SafetensorsFormat, WritesAnEmptyRecordAndMetadataAsThePackageDoes) {
  EXPECT_EQ(serialize_safetensors(Record{}), test::file_with_size(8, "{}      ", {}));
  const Record with_metadata{{}, {{"framework", "pt"}}};
  EXPECT_EQ(serialize_safetensors(with_metadata),
            test::file_with_size(40, R"({"__metadata__":{"framework":"pt"}}     )", {}));
  EXPECT_EQ(deserialize_safetensors(serialize_safetensors(with_metadata)).metadata,
            with_metadata.metadata);
}

TEST(SafetensorsFormat, OrdersTensorsByDtypeSizeThenByName) {
  const Record record{{{"b", TensorData(std::vector<uint8_t>{1}, Shape{1})},
                       {"a", TensorData(std::vector<double>{1}, Shape{1})},
                       {"z", TensorData(std::vector<bool>{true}, Shape{1})},
                       {"c", TensorData(std::vector<float>{1}, Shape{1})},
                       {"a2", TensorData(std::vector<uint8_t>{1}, Shape{1})},
                       {"m", TensorData(std::vector<int64_t>{1}, Shape{1})},
                       {"h", TensorData(std::vector<Half>{Half(1.0f)}, Shape{1})},
                       {"g", TensorData(std::vector<BFloat16>{BFloat16(1.0f)}, Shape{1})}},
                      {}};
  // The package's dtype order, largest last: ... I8 < F16 < BF16 < ... < F32 < F64 < I64.
  EXPECT_EQ(names_in_order(deserialize_safetensors(serialize_safetensors(record))),
            (std::vector<std::string>{"m", "a", "c", "g", "h", "a2", "b", "z"}));
}

TEST(SafetensorsFormat, ReadsEveryDtypeThePackageWrites) {
  const Record record = load_safetensors(test::fixture("dtypes.safetensors"));
  std::ifstream json_file(test::fixture("expected.json"));
  const nlohmann::json expected = nlohmann::json::parse(json_file)["dtypes"];
  EXPECT_EQ(record.metadata, expected["metadata"].get<Metadata>());
  ASSERT_EQ(record.tensors.size(), expected["tensors"].size());
  for (const auto& [name, want] : expected["tensors"].items()) {
    SCOPED_TRACE(name);
    const TensorData* data = record.find(name);
    ASSERT_NE(data, nullptr);
    const std::string dtype = want["dtype"];
    EXPECT_EQ(data->shape(), Shape(want["shape"].get<std::vector<int64_t>>()));
    if (dtype == "U64") {
      EXPECT_EQ(data->to_vector<uint64_t>(), want["values"].get<std::vector<uint64_t>>());
    } else if (dtype == "BOOL") {
      EXPECT_EQ(data->to_vector<bool>(), want["values"].get<std::vector<bool>>());
    } else if (dtype.starts_with('I') || dtype.starts_with('U')) {
      EXPECT_EQ(data->to_vector<int64_t>(), want["values"].get<std::vector<int64_t>>());
    } else {
      EXPECT_EQ(data->to_vector<double>(), want["values"].get<std::vector<double>>());
    }
    std::string upper = std::string(dtype_name(data->dtype()));
    for (char& c : upper)
      c = static_cast<char>(std::toupper(c));
    EXPECT_EQ(upper, dtype);  // ember's "f32" is the format's "F32"
  }
}

TEST(SafetensorsFormat, RewritesFilesOfThePackageByteForByte) {
  for (const char* name : {"dtypes.safetensors", "mlp.safetensors"}) {
    const Bytes file = test::read_bytes(test::fixture(name));
    EXPECT_EQ(serialize_safetensors(deserialize_safetensors(file)), file) << name;
  }
}

TEST(SafetensorsFormat, ReadsZeroDimTensorsWithShapeOne) {
  const std::string header = R"({"count":{"dtype":"I64","shape":[],"data_offsets":[0,8]}})";
  const Bytes file =
      test::file_with_size(header.size(), header, raw_bytes(std::vector<int64_t>{3}));
  const Record loaded = deserialize_safetensors(file);
  ASSERT_EQ(loaded.tensors.size(), 1u);
  EXPECT_EQ(loaded.tensors[0].data, TensorData(std::vector<int64_t>{3}, Shape{1}));
}

TEST(SafetensorsFormat, WritesRankZeroDataWithAnEmptyShape) {
  const Record record{{{"count", TensorData(std::vector<int64_t>{3}, Shape{})}}, {}};
  const std::string header = R"({"count":{"dtype":"I64","shape":[],"data_offsets":[0,8]}})";
  EXPECT_EQ(serialize_safetensors(record),
            test::file_with_size(64, header + std::string(64 - header.size(), ' '),
                                 raw_bytes(std::vector<int64_t>{3})));
}

TEST(SafetensorsFormat, ReadsEntriesInAnyOrderAndListsTensorsInFileOrder) {
  // Keys out of order, tensors not in the package's order: still a valid file.
  const std::string header =
      R"({"x":{"data_offsets":[4,6],"shape":[1],"dtype":"F16"},)"
      R"("__metadata__":{"b":"2","a":"1"},"y":{"dtype":"I32","shape":[1],"data_offsets":[0,4]}})";
  Bytes buffer = raw_bytes(std::vector<int32_t>{-7});
  const Bytes half = raw_bytes(std::vector<Half>{Half(0.5f)});
  buffer.insert(buffer.end(), half.begin(), half.end());
  const Record record =
      deserialize_safetensors(test::file_with_size(header.size() + 3, header + "   ", buffer));
  EXPECT_EQ(names_in_order(record), (std::vector<std::string>{"y", "x"}));
  EXPECT_EQ(record.tensors[0].data.to_vector<int64_t>(), std::vector<int64_t>{-7});
  EXPECT_EQ(record.tensors[1].data.to_vector<double>(), std::vector<double>{0.5});
  EXPECT_EQ(record.metadata, (Metadata{{"a", "1"}, {"b", "2"}}));
}

TEST(SafetensorsFormat, RoundTripsEveryDtypeBitForBitThroughAFile) {
  const float nan_with_payload = std::bit_cast<float>(0x7fc00123u);
  const Record record{
      {{"f64", TensorData(std::vector<double>{-0.0, std::numeric_limits<double>::denorm_min(),
                                              std::numeric_limits<double>::infinity()},
                          Shape{3})},
       {"f32", TensorData(std::vector<float>{nan_with_payload, 1e-40f, -3.5f, 7.0f}, Shape{2, 2})},
       {"f16", TensorData(std::vector<Half>{Half(65504.0f), Half(-0.0f)}, Shape{2})},
       {"bf16", TensorData(std::vector<BFloat16>{BFloat16(1e30f)}, Shape{1})},
       {"i64", TensorData(std::vector<int64_t>{std::numeric_limits<int64_t>::min()}, Shape{1})},
       {"i32", TensorData(std::vector<int32_t>{-5, 6}, Shape{1, 2})},
       {"i16", TensorData(std::vector<int16_t>{-300}, Shape{1})},
       {"i8", TensorData(std::vector<int8_t>{-128, 0, 1}, Shape{3})},
       {"u64", TensorData(std::vector<uint64_t>{std::numeric_limits<uint64_t>::max()}, Shape{1})},
       {"u32", TensorData(std::vector<uint32_t>{4000000000u}, Shape{1})},
       {"u16", TensorData(std::vector<uint16_t>{65535, 1}, Shape{2, 1})},
       {"u8", TensorData(std::vector<uint8_t>{255}, Shape{1})},
       {"bool", TensorData(std::vector<bool>{true, false}, Shape{2})},
       {"empty", TensorData(std::vector<float>{}, Shape{0, 4})},
       {"caf\xc3\xa9.w\"eight\n", TensorData(std::vector<float>{2.0f}, Shape{1})}},
      {{"note", "\xe2\x9c\x93 \"quoted\"\t"}, {"format", "pt"}}};
  test::TempDir dir;
  save_safetensors(record, dir / "all.safetensors");
  const Record loaded = load_safetensors(dir / "all.safetensors");
  EXPECT_EQ(loaded.metadata, record.metadata);
  ASSERT_EQ(loaded.tensors.size(), record.tensors.size());
  for (const NamedData& tensor : record.tensors) {
    const TensorData* back = loaded.find(tensor.name);
    ASSERT_NE(back, nullptr) << tensor.name;
    EXPECT_EQ(*back, tensor.data) << tensor.name;  // same shape, dtype and bytes
  }
}

TEST(SafetensorsFormat, RefusesNamesTheFormatCannotHold) {
  const TensorData one(std::vector<float>{1}, Shape{1});
  const auto message_for = [](const Record& record) {
    return test::invalid_argument_message([&] { serialize_safetensors(record); });
  };
  test::expect_mentions(message_for(Record{{{"w", one}, {"w", one}}, {}}),
                        {"[save_safetensors] ", "'w'"});
  test::expect_mentions(message_for(Record{{{"__metadata__", one}}, {}}),
                        {"[save_safetensors] ", "__metadata__"});
  test::expect_mentions(message_for(Record{{{"bad\xff", one}}, {}}),
                        {"[save_safetensors] ", "UTF-8"});
  test::expect_mentions(message_for(Record{{}, {{"k", "bad\xc3"}}}),
                        {"[save_safetensors] ", "UTF-8"});
}

TEST(SafetensorsFormat, FindLooksATensorUpByName) {
  const Record record{{{"a", TensorData(std::vector<float>{1}, Shape{1})},
                       {"b", TensorData(std::vector<float>{2}, Shape{1})}},
                      {}};
  ASSERT_NE(record.find("b"), nullptr);
  EXPECT_EQ(record.find("b")->to_vector<double>(), std::vector<double>{2});
  EXPECT_EQ(record.find("c"), nullptr);
}

}  // namespace
}  // namespace ember::record
