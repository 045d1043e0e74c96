// The IDX file format (the MNIST family's): a big-endian header, then the values in row-major
// order, big-endian.
//
//   bytes 0-1  zero
//   byte  2    element type: 0x08 u8, 0x09 i8, 0x0B i16, 0x0C i32, 0x0D f32, 0x0E f64
//   byte  3    number of dims n
//   n x u32    the dims, outermost first
//   payload    product(dims) values
#pragma once

#include <filesystem>

#include "ember/tensor_data.h"

namespace ember::data {

/// Reads the IDX file at path, gzip-compressed or plain (told apart by gzip's magic bytes,
/// 1f 8b), into a TensorData of the file's dtype and shape (n dims; no dim gives a scalar).
///
/// Every failure is an ember::InvalidArgument whose message is "[read_idx] <path>: <problem>",
/// a missing file included (it is bad input like the rest, not a build configuration problem):
/// a missing or unreadable file, a path that is not a regular file, a truncated header, a bad
/// magic or element type code, dims whose product (zero dims counted as 1, as in strides)
/// overflows int64 bytes, a payload shorter or longer than the dims describe, and gzip errors
/// (corrupt or truncated stream). The dims are checked against what the file can hold before
/// the payload is allocated (for gzip, deflate's maximum ratio of 1032:1), and the payload is
/// read in chunks, so a lying header cannot cause a huge allocation.
TensorData read_idx(const std::filesystem::path& path);

}  // namespace ember::data
