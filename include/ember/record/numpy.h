// NumPy's own files, so arrays move between ember and Python without a conversion step: .npy (one
// array, numpy.save / numpy.load) and .npz (a ZIP archive of .npy members, numpy.savez and
// numpy.savez_compressed). The format:
// https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
//
// A .npy file: the magic "\x93NUMPY", a version byte pair (1.0, 2.0 or 3.0), the header length
// (2 little-endian bytes in 1.0, 4 in 2.0 and 3.0), then a Python dict literal such as
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } padded with spaces and ended by a
// newline, then the values. Dtypes: '<f8' '<f4' '<f2' '<i8' '<i4' '<i2' '|i1' '<u8' '<u4' '<u2'
// '|u1' '|b1' (bool). BF16 has no NumPy dtype: writing a BF16 tensor is InvalidArgument (convert
// it to F32 first).
//
// Writing follows numpy.save byte for byte: version 1.0 (2.0 when the header exceeds 65535
// bytes), little-endian, C order, the header padded so the data starts at a multiple of 64 bytes.
// Reading accepts every version, either byte order ('>f4' is byte-swapped), Fortran order (the
// values are transposed into row-major), any header padding, shape () (a rank-0 TensorData) and
// zero-size arrays. Every field is checked before anything is allocated: a corrupt or truncated
// file gives InvalidArgument naming the file and the field, never a crash.
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>
#include <string_view>
#include <vector>

#include "ember/record/safetensors.h"
#include "ember/tensor_data.h"

namespace ember::record {

/// The .npy file numpy.save would write for data. InvalidArgument "[save_npy] ..." when data is
/// BF16 (NumPy has no bfloat16).
std::vector<std::byte> serialize_npy(const TensorData& data);

/// Parses a .npy file held in memory; source names it in error messages. InvalidArgument
/// "[load_npy] <source>: ..." naming the field when: the magic is wrong; the version is not 1.0,
/// 2.0 or 3.0; the header length leaves the file; the header is not a dict literal with exactly
/// the keys 'descr' (a supported dtype string), 'fortran_order' (True or False) and 'shape' (a
/// tuple of non-negative ints); the element count or byte size overflows int64; the data is
/// shorter or longer than the shape says; or a bool byte is neither 0 nor 1.
TensorData deserialize_npy(std::span<const std::byte> file, std::string_view source = "npy bytes");

/// Writes serialize_npy(data) to path atomically (see write_file_atomically). InvalidArgument
/// "[save_npy] <path>: ..." for a BF16 tensor or when the file cannot be written.
void save_npy(const std::filesystem::path& path, const TensorData& data);

/// Reads the .npy file at path (see deserialize_npy); errors are "[load_npy] <path>: ...".
TensorData load_npy(const std::filesystem::path& path);

/// A .npz archive as numpy.savez writes it: one stored (uncompressed) ZIP member "<name>.npy" per
/// array, in the given order, each a serialize_npy file with its CRC-32. InvalidArgument
/// "[save_npz] ..." when a name is empty or repeated, an array is BF16, or the archive would need
/// ZIP64 (4 GiB or more, or 65535 members or more: not written).
std::vector<std::byte> serialize_npz(std::span<const NamedData> arrays);

/// Parses a .npz archive held in memory: numpy.savez's (stored) or numpy.savez_compressed's
/// (deflate) members, found through the ZIP central directory, in its order, each named by its
/// member name without ".npy". InvalidArgument "[load_npz] <source>: ..." when the end of central
/// directory record is missing or followed by garbage, an offset or size leaves the archive, a
/// member is encrypted, compressed by another method than stored or deflate, not a ".npy" file,
/// repeated, fails its CRC-32 or inflates to another size than recorded, or is not a valid .npy
/// (the error then names the member). ZIP64 size fields in the central directory are read; a
/// ZIP64 end of central directory record (archives of 65535 members or more, or a central
/// directory past 4 GiB) is refused.
std::vector<NamedData> deserialize_npz(std::span<const std::byte> file,
                                       std::string_view source = "npz bytes");

/// Writes serialize_npz(arrays) to path atomically. Errors are "[save_npz] <path>: ...".
void save_npz(const std::filesystem::path& path, std::span<const NamedData> arrays);

/// Reads the .npz archive at path (see deserialize_npz); errors are "[load_npz] <path>: ...".
std::vector<NamedData> load_npz(const std::filesystem::path& path);

}  // namespace ember::record
