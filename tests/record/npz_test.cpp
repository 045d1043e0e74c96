// .npz archives (ember/record/numpy.h): archives built here by hand (stored and deflate members,
// as numpy.savez and numpy.savez_compressed write them), round trips, and corrupt archives.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ember/record/numpy.h"
#include "numpy_test_util.h"

namespace ember::record {
namespace {

using test::Bytes;

struct ZipMember {
  std::string name;
  Bytes data;  // uncompressed
  bool deflate = false;
};

void put_le(Bytes& out, uint64_t value, int n) {
  for (int i = 0; i < n; ++i)
    out.push_back(static_cast<std::byte>((value >> (8 * i)) & 0xff));
}

void put_text(Bytes& out, const std::string& text) {
  for (const char c : text)
    out.push_back(static_cast<std::byte>(c));
}

Bytes raw_deflate(const Bytes& data) {
  z_stream stream{};
  EXPECT_EQ(deflateInit2(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY),
            Z_OK);
  Bytes out(deflateBound(&stream, data.size()));
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&stream, Z_FINISH), Z_STREAM_END);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

/// A ZIP archive of members, written field by field after APPNOTE.TXT (independent of
/// serialize_npz).
Bytes zip_of(const std::vector<ZipMember>& members) {
  Bytes zip, directory;
  for (const ZipMember& member : members) {
    const Bytes stored = member.deflate ? raw_deflate(member.data) : member.data;
    const auto crc = crc32(0, reinterpret_cast<const Bytef*>(member.data.data()),
                           static_cast<uInt>(member.data.size()));
    const uint16_t method = member.deflate ? 8 : 0;
    const std::size_t offset = zip.size();
    for (Bytes* out : {&zip, &directory}) {
      const bool central = out == &directory;
      put_le(*out, central ? 0x02014b50 : 0x04034b50, 4);
      if (central) put_le(*out, 20, 2);  // made by
      put_le(*out, 20, 2);               // needed
      put_le(*out, 0, 2);                // flags
      put_le(*out, method, 2);
      put_le(*out, 0, 4);  // time, date
      put_le(*out, crc, 4);
      put_le(*out, stored.size(), 4);
      put_le(*out, member.data.size(), 4);
      put_le(*out, member.name.size(), 2);
      put_le(*out, 0, 2);  // extra
      if (central) {
        put_le(*out, 0, 2);  // comment
        put_le(*out, 0, 2);  // disk
        put_le(*out, 0, 2);  // internal attributes
        put_le(*out, 0, 4);  // external attributes
        put_le(*out, offset, 4);
      }
      put_text(*out, member.name);
    }
    zip.insert(zip.end(), stored.begin(), stored.end());
  }
  const std::size_t directory_offset = zip.size();
  zip.insert(zip.end(), directory.begin(), directory.end());
  put_le(zip, 0x06054b50, 4);
  put_le(zip, 0, 4);
  put_le(zip, members.size(), 2);
  put_le(zip, members.size(), 2);
  put_le(zip, directory.size(), 4);
  put_le(zip, directory_offset, 4);
  put_le(zip, 0, 2);
  return zip;
}

/// a: f32 [2, 3] of i * 0.5 - 3; b: i64 [4] of 10 * i.
std::vector<NamedData> sample_arrays() {
  std::vector<float> a;
  for (int i = 0; i < 6; ++i)
    a.push_back(static_cast<float>(i) * 0.5f - 3);
  return {{"a", TensorData(a, Shape{2, 3})},
          {"b", TensorData(std::vector<int64_t>{0, 10, 20, 30}, Shape{4})}};
}

std::vector<ZipMember> sample_members(bool deflate) {
  std::vector<ZipMember> members;
  for (const NamedData& array : sample_arrays())
    members.push_back({array.name + ".npy", serialize_npy(array.data), deflate});
  return members;
}

void expect_arrays(const std::vector<NamedData>& read, const std::vector<NamedData>& expected) {
  ASSERT_EQ(read.size(), expected.size());
  for (std::size_t i = 0; i < read.size(); ++i) {
    EXPECT_EQ(read[i].name, expected[i].name);
    EXPECT_EQ(read[i].data, expected[i].data) << read[i].name;
  }
}

std::string npz_error(const Bytes& file) {
  test::TempDir dir;
  const auto path = dir / "corrupt.npz";
  test::write_bytes(path, file);
  const std::string message = test::invalid_argument_message([&] { load_npz(path); });
  test::expect_mentions(message, {"[load_npz] ", "corrupt.npz: "});
  return message;
}

TEST(Npz, ReadsStoredAndDeflateArchives) {
  expect_arrays(deserialize_npz(zip_of(sample_members(false))), sample_arrays());
  expect_arrays(deserialize_npz(zip_of(sample_members(true))), sample_arrays());
  expect_arrays(deserialize_npz(zip_of({})), {});
}

TEST(Npz, RoundTripsAndSavesFiles) {
  const std::vector<NamedData> arrays = sample_arrays();
  expect_arrays(deserialize_npz(serialize_npz(arrays)), arrays);
  test::TempDir dir;
  save_npz(dir / "x.npz", arrays);
  expect_arrays(load_npz(dir / "x.npz"), arrays);
  // The writer's stored archive has the same members, CRCs and layout as the hand-built one.
  EXPECT_EQ(serialize_npz(arrays).size(), zip_of(sample_members(false)).size());
}

TEST(Npz, WriterRefusesBadNames) {
  std::vector<NamedData> arrays = sample_arrays();
  arrays[1].name = "a";
  test::expect_mentions(test::invalid_argument_message([&] { serialize_npz(arrays); }),
                        {"[save_npz]", "'a'"});
  arrays[1].name = "";
  test::expect_mentions(test::invalid_argument_message([&] { serialize_npz(arrays); }),
                        {"empty name"});
  arrays[1] = {"h", TensorData::zeros(Shape{1}, DType::BF16)};
  test::TempDir dir;
  test::expect_mentions(test::invalid_argument_message([&] { save_npz(dir / "y.npz", arrays); }),
                        {"[save_npz]", "y.npz", "bf16"});
}

TEST(NpzCorrupt, TruncatedOrTrailingBytes) {
  const Bytes good = zip_of(sample_members(true));
  for (std::size_t size = 0; size < good.size(); ++size) {
    const Bytes prefix(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(size));
    EXPECT_THROW(deserialize_npz(prefix), InvalidArgument) << size;
  }
  Bytes trailing = good;
  trailing.push_back(std::byte{0});
  test::expect_mentions(npz_error(trailing), {"end of central directory"});
  test::expect_mentions(npz_error(test::bytes_of({1, 2, 3})), {"3 bytes"});
}

TEST(NpzCorrupt, EveryByteFlipIsRefusedOrReadsValidArrays) {
  // Any single corrupted byte gives an InvalidArgument or (in an ignored field such as a date) a
  // valid result: never a crash.
  for (const bool deflate : {false, true}) {
    const Bytes good = zip_of(sample_members(deflate));
    for (std::size_t i = 0; i < good.size(); ++i) {
      Bytes bad = good;
      bad[i] ^= std::byte{0x5a};
      try {
        deserialize_npz(bad);
      } catch (const InvalidArgument&) {
      }
    }
  }
}

TEST(NpzCorrupt, BadMembers) {
  std::vector<ZipMember> members = sample_members(false);
  members[0].name = "a.txt";
  test::expect_mentions(npz_error(zip_of(members)), {"'a.txt'", "not a .npy"});
  members[0].name = "b.npy";
  test::expect_mentions(npz_error(zip_of(members)), {"'b.npy' appears twice"});
  members = sample_members(false);
  members[1].data[0] = std::byte{0};  // not an .npy file, with a correct CRC
  test::expect_mentions(npz_error(zip_of(members)), {"member 'b.npy'", "magic"});
}

TEST(NpzCorrupt, BadCrcMethodOffsetsAndSizes) {
  const Bytes good = zip_of(sample_members(false));
  // The central directory of the first member starts right after the members.
  const std::size_t end_record = good.size() - 22;
  const auto directory = static_cast<std::size_t>(static_cast<uint8_t>(good[end_record + 16]) |
                                                  static_cast<uint8_t>(good[end_record + 17]) << 8);
  const auto patched = [&](std::size_t at, std::initializer_list<int> values) {
    Bytes bad = good;
    for (const int v : values)
      bad[at++] = static_cast<std::byte>(v);
    return bad;
  };
  test::expect_mentions(npz_error(patched(directory + 16, {1, 2, 3, 4})), {"'a.npy'", "CRC-32"});
  test::expect_mentions(npz_error(patched(directory + 10, {12, 0})), {"method 12"});
  test::expect_mentions(npz_error(patched(directory + 8, {1, 0})), {"encrypted"});
  test::expect_mentions(npz_error(patched(directory + 42, {0xff, 0xff, 0, 0})),
                        {"'a.npy'", "local header offset"});
  test::expect_mentions(npz_error(patched(directory + 20, {0xff, 0xff, 0xff, 0x7f})),
                        {"'a.npy'", "leave"});
  test::expect_mentions(npz_error(patched(end_record + 16, {0, 0})), {"central directory"});
  test::expect_mentions(npz_error(patched(end_record + 10, {0xff, 0xff})), {"ZIP64"});
  test::expect_mentions(npz_error(patched(0, {0})), {"local header signature"});
}

TEST(NpzCorrupt, DeflateSizeMismatchAndBadStream) {
  std::vector<ZipMember> members = sample_members(true);
  Bytes good = zip_of(members);
  const std::size_t end_record = good.size() - 22;
  const auto directory = static_cast<std::size_t>(static_cast<uint8_t>(good[end_record + 16]) |
                                                  static_cast<uint8_t>(good[end_record + 17]) << 8);
  Bytes smaller = good;
  smaller[directory + 24] =
      static_cast<std::byte>(static_cast<uint8_t>(smaller[directory + 24]) - 1);
  test::expect_mentions(npz_error(smaller), {"'a.npy'", "more than"});
  Bytes larger = good;
  larger[directory + 27] = std::byte{0x10};  // 256 MiB recorded: nothing that large is allocated
  test::expect_mentions(npz_error(larger), {"'a.npy'", "inflates to"});
  Bytes garbage = good;
  for (std::size_t i = 30 + 5; i < 30 + 5 + 8; ++i)
    garbage[i] = std::byte{0xff};
  EXPECT_THROW(deserialize_npz(garbage), InvalidArgument);
}

}  // namespace
}  // namespace ember::record
