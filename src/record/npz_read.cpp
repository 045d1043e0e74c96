// Reading .npz archives: the ZIP end of central directory record, then each central directory
// entry, its local header and its data (stored or deflate), every offset and size checked against
// the archive before it is used; then each member's bytes are a .npy file (npy_read.cpp).
#include <zlib.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <set>
#include <string>

#include "ember/record/numpy.h"
#include "npy_format.h"
#include "npz_format.h"

namespace ember::record {
namespace {

using detail::Failure;

uint64_t le(std::span<const std::byte> bytes, std::size_t at, std::size_t n) {
  uint64_t value = 0;
  for (std::size_t i = n; i-- > 0;)
    value = (value << 8) | static_cast<uint8_t>(bytes[at + i]);
  return value;
}

/// The offset of the end of central directory record: the last signature whose comment ends
/// exactly at the end of the archive.
std::size_t find_end_record(std::span<const std::byte> file, const Failure& fail) {
  if (file.size() < detail::kEndOfCentralDirSize)
    fail("archive is ", file.size(),
         " bytes, shorter than a ZIP end of central directory record (22)");
  const std::size_t last = file.size() - detail::kEndOfCentralDirSize;
  const std::size_t first = last > 0xffff ? last - 0xffff : 0;  // the comment is at most 65535
  for (std::size_t at = last + 1; at-- > first;) {
    if (le(file, at, 4) == detail::kEndOfCentralDirSignature &&
        at + detail::kEndOfCentralDirSize + le(file, at + 20, 2) == file.size())
      return at;
  }
  fail(
      "no ZIP end of central directory record at the end (not a .npz archive, truncated, or "
      "followed by trailing bytes)");
}

/// Where a member's sizes and offset are 0xffffffff, the ZIP64 extra field (id 1) holds them.
void read_zip64_extra(std::span<const std::byte> extra, uint64_t& size, uint64_t& compressed,
                      uint64_t& offset, const Failure& fail, const std::string& member) {
  for (std::size_t at = 0; at + 4 <= extra.size();) {
    const uint64_t id = le(extra, at, 2), length = le(extra, at + 2, 2);
    if (at + 4 + length > extra.size())
      fail("central directory entry '", member, "': an extra field leaves the entry");
    if (id == 1) {
      std::size_t field = at + 4;
      for (uint64_t* value : {&size, &compressed, &offset}) {
        if (*value != 0xffffffffu) continue;
        if (field + 8 > at + 4 + length)
          fail("central directory entry '", member, "': the ZIP64 extra field is too short");
        *value = le(extra, field, 8);
        field += 8;
      }
      return;
    }
    at += 4 + length;
  }
  if (size == 0xffffffffu || compressed == 0xffffffffu || offset == 0xffffffffu)
    fail("central directory entry '", member,
         "': a size or offset is 0xffffffff without a ZIP64 "
         "extra field");
}

/// A raw deflate stream (windowBits -15) inflated to exactly size bytes. The output grows with
/// what the stream actually produces, never straight to the recorded size.
std::vector<std::byte> inflate_member(std::span<const std::byte> in, uint64_t size,
                                      const Failure& fail, const std::string& member) {
  z_stream stream{};
  if (inflateInit2(&stream, -15) != Z_OK) fail("member '", member, "': zlib cannot start");
  struct End {
    z_stream* stream;
    ~End() { inflateEnd(stream); }
  } end{&stream};
  std::vector<std::byte> out;
  std::size_t produced = 0, consumed = 0;
  unsigned char spare = 0;  // output past size lands here, and is an error
  for (;;) {
    if (produced == out.size() && out.size() < size)
      out.resize(static_cast<std::size_t>(
          std::min<uint64_t>(size, std::max<uint64_t>(2 * out.size(), 1 << 16))));
    const bool full = produced == out.size();
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(in.data() + consumed));
    stream.avail_in = static_cast<uInt>(std::min<std::size_t>(in.size() - consumed, UINT_MAX));
    stream.next_out = full ? &spare : reinterpret_cast<Bytef*>(out.data() + produced);
    stream.avail_out =
        full ? 1 : static_cast<uInt>(std::min<std::size_t>(out.size() - produced, UINT_MAX));
    const uInt in_before = stream.avail_in, out_before = stream.avail_out;
    const int rc = inflate(&stream, Z_NO_FLUSH);
    consumed += in_before - stream.avail_in;
    if (full && stream.avail_out == 0)
      fail("member '", member, "': inflates to more than the ", size,
           " bytes the central directory records");
    if (!full) produced += out_before - stream.avail_out;
    if (rc == Z_STREAM_END) break;
    // Z_BUF_ERROR: no progress, the input ran out before the stream's end.
    if (rc == Z_BUF_ERROR)
      fail("member '", member, "': the deflate data ends before the stream does (truncated)");
    if (rc != Z_OK)
      fail("member '", member, "': corrupt deflate data (", stream.msg ? stream.msg : "zlib error",
           ")");
  }
  if (produced != size)
    fail("member '", member, "': inflates to ", produced, " bytes, not the ", size,
         " the central directory records");
  if (consumed != in.size())
    fail("member '", member, "': ", in.size() - consumed,
         " bytes follow the deflate stream within its compressed size");
  return out;
}

}  // namespace

std::vector<NamedData> deserialize_npz(std::span<const std::byte> file, std::string_view source) {
  const Failure fail("load_npz", source);
  const std::size_t end_record = find_end_record(file, fail);
  const uint64_t this_disk = le(file, end_record + 4, 2),
                 directory_disk = le(file, end_record + 6, 2);
  const uint64_t entries_here = le(file, end_record + 8, 2), entries = le(file, end_record + 10, 2);
  const uint64_t directory_size = le(file, end_record + 12, 4);
  const uint64_t directory_offset = le(file, end_record + 16, 4);
  if (entries == 0xffff || directory_size == 0xffffffffu || directory_offset == 0xffffffffu)
    fail(
        "the archive has a ZIP64 end of central directory record (65535 members or more, or over "
        "4 GiB), which is not supported");
  if (this_disk != 0 || directory_disk != 0 || entries_here != entries)
    fail("end of central directory: a multi-disk archive, not supported");
  if (directory_offset + directory_size != end_record)
    fail("end of central directory: the central directory (offset ", directory_offset, ", ",
         directory_size, " bytes) does not end where the end record starts (", end_record, ")");

  std::vector<NamedData> arrays;
  std::set<std::string> names;
  std::size_t at = directory_offset;
  for (uint64_t i = 0; i < entries; ++i) {
    if (end_record - at < detail::kCentralHeaderSize)
      fail("central directory entry ", i, " leaves the central directory");
    if (le(file, at, 4) != detail::kCentralHeaderSignature)
      fail("central directory entry ", i, ": bad signature");
    const uint64_t flags = le(file, at + 8, 2), method = le(file, at + 10, 2);
    const uint64_t crc = le(file, at + 16, 4);
    uint64_t compressed = le(file, at + 20, 4), size = le(file, at + 24, 4);
    const uint64_t name_length = le(file, at + 28, 2), extra_length = le(file, at + 30, 2),
                   comment_length = le(file, at + 32, 2);
    uint64_t offset = le(file, at + 42, 4);
    const uint64_t entry_size =
        detail::kCentralHeaderSize + name_length + extra_length + comment_length;
    if (end_record - at < entry_size)
      fail("central directory entry ", i,
           ": its name, extra field or comment leaves the "
           "central directory");
    const std::string member(reinterpret_cast<const char*>(file.data() + at + 46), name_length);
    read_zip64_extra(file.subspan(at + 46 + name_length, extra_length), size, compressed, offset,
                     fail, member);
    at += entry_size;

    if (member.size() < 5 || member.substr(member.size() - 4) != ".npy")
      fail("member '", member, "' is not a .npy file");
    const std::string name = member.substr(0, member.size() - 4);
    if (!names.insert(name).second) fail("member '", member, "' appears twice");
    if (flags & 1) fail("member '", member, "' is encrypted");
    if (method != detail::kMethodStored && method != detail::kMethodDeflate)
      fail("member '", member, "': compression method ", method,
           " is not stored (0) or deflate (8)");

    // The local header, then the data, both before the central directory.
    if (offset > directory_offset || directory_offset - offset < detail::kLocalHeaderSize)
      fail("member '", member, "': local header offset ", offset, " leaves the archive's members");
    if (le(file, offset, 4) != detail::kLocalHeaderSignature)
      fail("member '", member, "': bad local header signature at offset ", offset);
    const uint64_t data_offset =
        offset + detail::kLocalHeaderSize + le(file, offset + 26, 2) + le(file, offset + 28, 2);
    if (data_offset > directory_offset || directory_offset - data_offset < compressed)
      fail("member '", member, "': its ", compressed, " bytes of data at offset ", data_offset,
           " leave the archive's members");
    const auto data = file.subspan(data_offset, compressed);

    std::vector<std::byte> npy;
    if (method == detail::kMethodStored) {
      if (compressed != size)
        fail("member '", member, "': stored, but its sizes differ (", compressed, " and ", size,
             ")");
      npy.assign(data.begin(), data.end());
    } else {
      npy = inflate_member(data, size, fail, member);
    }
    if (crc32_z(0, reinterpret_cast<const Bytef*>(npy.data()), npy.size()) != crc)
      fail("member '", member, "': CRC-32 mismatch (corrupt data)");
    // The member's own errors name the archive and the member.
    const Failure member_fail("load_npz", std::string(source) + ": member '" + member + "'");
    arrays.push_back({name, detail::deserialize_npy_with(npy, member_fail)});
  }
  if (at != end_record)
    fail("central directory: ", end_record - at, " bytes after its ", entries, " entries");
  return arrays;
}

}  // namespace ember::record
