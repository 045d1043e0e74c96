// The IDX file format (the MNIST family's): a big-endian header, then the values in row-major
// order, big-endian; stored plain or gzip-compressed.
//
//   bytes 0-1  zero
//   byte  2    element type: 0x08 u8, 0x09 i8, 0x0B i16, 0x0C i32, 0x0D f32, 0x0E f64
//   byte  3    number of dims n
//   n x u32    the dims, outermost first
//   payload    product(dims) values
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>
#include <string_view>
#include <vector>

#include "ember/tensor_data.h"

namespace ember::data {

/// Decodes an IDX image held in memory, gzip-compressed or plain (told apart by gzip's magic
/// bytes, 1f 8b), into a TensorData of its dtype and shape (n dims; no dim gives a scalar).
/// source names the bytes in messages (read_idx passes the path).
///
/// Every failure is an ember::InvalidArgument whose message is "[read_idx] <source>: <problem>":
/// a truncated header, a bad magic or element type code, dims whose product (zero dims counted
/// as 1, as in strides) overflows int64 bytes, a payload shorter or longer than the dims
/// describe, and gzip errors: a corrupt or truncated stream, or trailing garbage (anything after
/// the last gzip member that is not another member; concatenated members are one stream, as
/// gzip(1) reads them). The dims are checked against what the bytes can hold before the payload
/// is allocated (for gzip, deflate's maximum ratio of 1032:1), and gzip is decompressed in
/// chunks into a payload of at most the size the header gives, so a lying header cannot cause a
/// huge allocation.
TensorData decode_idx(std::span<const std::byte> bytes, std::string_view source);

/// Reads the regular file at path whole and decodes it (decode_idx, with the path as source).
/// Fails as decode_idx does, and with "[read_idx] <path>: <problem>" for a missing or
/// unreadable file or a path that is not a regular file (a missing file is bad input like the
/// rest, not a build configuration problem).
TensorData read_idx(const std::filesystem::path& path);

/// The IDX image of data, gzip-compressed when gzip is true (one member, as gzip(1) writes it).
/// IDX holds the dtypes u8, i8, i16, i32, f32 and f64 and shapes of at most 255 dims below 2^32;
/// anything else is an InvalidArgument "[encode_idx] ..." naming the dtype or the shape.
std::vector<std::byte> encode_idx(const TensorData& data, bool gzip);

/// Writes encode_idx(data, gzip) to path, replacing any file there. InvalidArgument
/// "[write_idx] <path>: <problem>" when data has no IDX image (as encode_idx says; nothing is
/// written then) or the file cannot be written (the system's reason).
void write_idx(const std::filesystem::path& path, const TensorData& data, bool gzip);

}  // namespace ember::data
