// Writing .npz archives as numpy.savez does: one stored (uncompressed) ZIP member "<name>.npy"
// per array, each with its CRC-32, then the central directory. Plain ZIP, without ZIP64 fields:
// numpy.load (Python's zipfile) reads it, and so does any unzip.
#include <zlib.h>

#include <cstdint>
#include <set>
#include <string>

#include "ember/record/numpy.h"
#include "npy_format.h"
#include "npz_format.h"

namespace ember::record {
namespace detail {
namespace {

constexpr uint16_t kVersion = 20;  // ZIP 2.0: what stored and deflate members need
constexpr uint16_t kDosDate =
    0x21;  // 1980-01-01, the earliest DOS date: the files stay reproducible

class Writer {
 public:
  void u16(uint32_t v) { le(v, 2); }
  void u32(uint32_t v) { le(v, 4); }
  void raw(std::span<const std::byte> bytes) { out.insert(out.end(), bytes.begin(), bytes.end()); }
  void text(const std::string& s) { raw(std::as_bytes(std::span(s.data(), s.size()))); }
  std::vector<std::byte> out;

 private:
  void le(uint32_t v, int n) {
    for (int i = 0; i < n; ++i)
      out.push_back(static_cast<std::byte>((v >> (8 * i)) & 0xff));
  }
};

struct Member {
  std::string name;
  uint32_t crc;
  uint32_t size;
  uint32_t offset;
};

uint32_t crc_of(std::span<const std::byte> bytes) {
  return static_cast<uint32_t>(
      crc32_z(0, reinterpret_cast<const Bytef*>(bytes.data()), bytes.size()));
}

}  // namespace

std::vector<std::byte> serialize_npz_with(std::span<const NamedData> arrays, const Failure& fail) {
  if (arrays.size() >= 0xffff)
    fail(arrays.size(), " arrays: an archive of 65535 members or more needs ZIP64, not written");
  std::set<std::string_view> names;
  Writer zip;
  std::vector<Member> members;
  for (const NamedData& array : arrays) {
    if (array.name.empty()) fail("an array has an empty name");
    if (!names.insert(array.name).second) fail("two arrays are named '", array.name, "'");
    const std::string name = array.name + ".npy";
    if (name.size() > 0xffff) fail("array name '", array.name.substr(0, 40), "...' is too long");
    const std::vector<std::byte> npy = serialize_npy_with(array.data, fail);
    const uint64_t end = zip.out.size() + kLocalHeaderSize + name.size() + npy.size();
    if (npy.size() >= 0xffffffffu || end >= 0xffffffffu)
      fail("array '", array.name, "': an archive of 4 GiB or more needs ZIP64, not written");
    const Member member{name, crc_of(npy), static_cast<uint32_t>(npy.size()),
                        static_cast<uint32_t>(zip.out.size())};
    zip.u32(kLocalHeaderSignature);
    zip.u16(kVersion);
    zip.u16(0);  // flags
    zip.u16(kMethodStored);
    zip.u16(0);  // time 00:00:00
    zip.u16(kDosDate);
    zip.u32(member.crc);
    zip.u32(member.size);  // compressed
    zip.u32(member.size);  // uncompressed
    zip.u16(static_cast<uint32_t>(name.size()));
    zip.u16(0);  // extra field
    zip.text(name);
    zip.raw(npy);
    members.push_back(member);
  }
  const uint64_t directory_offset = zip.out.size();
  for (const Member& member : members) {
    zip.u32(kCentralHeaderSignature);
    zip.u16(kVersion);  // made by
    zip.u16(kVersion);  // needed
    zip.u16(0);
    zip.u16(kMethodStored);
    zip.u16(0);
    zip.u16(kDosDate);
    zip.u32(member.crc);
    zip.u32(member.size);
    zip.u32(member.size);
    zip.u16(static_cast<uint32_t>(member.name.size()));
    zip.u16(0);  // extra field
    zip.u16(0);  // comment
    zip.u16(0);  // disk
    zip.u16(0);  // internal attributes
    zip.u32(0);  // external attributes
    zip.u32(member.offset);
    zip.text(member.name);
  }
  const uint64_t directory_size = zip.out.size() - directory_offset;
  if (zip.out.size() >= 0xffffffffu) fail("an archive of 4 GiB or more needs ZIP64, not written");
  zip.u32(kEndOfCentralDirSignature);
  zip.u16(0);  // this disk
  zip.u16(0);  // the central directory's disk
  zip.u16(static_cast<uint32_t>(members.size()));
  zip.u16(static_cast<uint32_t>(members.size()));
  zip.u32(static_cast<uint32_t>(directory_size));
  zip.u32(static_cast<uint32_t>(directory_offset));
  zip.u16(0);  // comment
  return std::move(zip.out);
}

}  // namespace detail

std::vector<std::byte> serialize_npz(std::span<const NamedData> arrays) {
  return detail::serialize_npz_with(arrays, detail::Failure("save_npz", ""));
}

}  // namespace ember::record
