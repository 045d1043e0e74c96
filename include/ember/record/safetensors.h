// Records: named tensors plus string metadata, stored in the safetensors format of the Python
// `safetensors` package (https://github.com/huggingface/safetensors), so files move between
// ember and PyTorch / Hugging Face tools in both directions.
//
// The format: an 8-byte little-endian header size N, N bytes of JSON header, then one byte
// buffer holding every tensor's values, row-major and little-endian. The header is an object
// mapping each tensor name to {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}
// (offsets into the byte buffer), plus an optional "__metadata__" object of strings. Dtype
// names: F64 F32 F16 BF16 I64 I32 I16 I8 U64 U32 U16 U8 BOOL.
//
// Writing follows the Python package byte for byte: tensors ordered by decreasing dtype size
// (the package's dtype order: U64 I64 F64 F32 U32 I32 BF16 F16 U16 I16 I8 U8 BOOL), then by
// name; compact JSON with "__metadata__" first (written only when there is metadata, its keys
// sorted); the header padded with spaces to a multiple of 8 bytes so every tensor is aligned.
//
// Reading accepts any file the package writes and checks every field before building a tensor: a
// corrupt or truncated file gives InvalidArgument naming the file and the tensor or field, never
// a crash or an allocation sized by a corrupt field.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ember/tensor_data.h"

namespace ember::record {

/// One tensor of a record.
struct NamedData {
  std::string name;
  TensorData data;
};

/// What a safetensors file holds.
struct Record {
  /// The tensors. Any order on save (the file's order is fixed by the format); on load, in the
  /// order of their bytes in the file.
  std::vector<NamedData> tensors;
  /// The "__metadata__" strings (none: the header has no "__metadata__").
  std::map<std::string, std::string> metadata;

  /// The tensor called name, or nullptr.
  const TensorData* find(std::string_view name) const;
};

/// The whole file save_safetensors writes, in memory. InvalidArgument "[save_safetensors] ..."
/// when two tensors share a name, a name is "__metadata__", or a name or metadata string is not
/// valid UTF-8.
std::vector<std::byte> serialize_safetensors(const Record& record);

/// Parses a safetensors file held in memory; source names it in error messages. A tensor of shape
/// [] (0-dim, such as PyTorch's num_batches_tracked) comes back with shape [1], since ember
/// tensors have rank >= 1. InvalidArgument "[load_safetensors] <source>: ..." when the bytes are
/// shorter than 8, the header size exceeds the bytes left (or 100 MB, the package's limit), the
/// header is not UTF-8 JSON, not an object or has a duplicate key, "__metadata__" is not an
/// object of strings, a tensor entry lacks a field or has a wrong one (unknown dtype, a negative
/// or non-integer dim, an element count or byte size that overflows, offsets that are not two
/// increasing integers, that leave the data buffer, or whose length is not shape * dtype size),
/// the tensors' bytes overlap or leave a gap (they must cover the buffer exactly), or a BOOL byte
/// is neither 0 nor 1.
Record deserialize_safetensors(std::span<const std::byte> file, std::string_view source = "bytes");

/// Writes record to path atomically: the file goes to a temporary file beside path, is flushed
/// to disk (fsync), renamed over path, and the directory is synced, so path holds either the old
/// file or the complete new one, even after a crash. A rank-0 TensorData is written with shape
/// []; ember tensors (rank >= 1) keep their shape, so a 0-dim PyTorch value saved from ember has
/// shape [1], which PyTorch's load_state_dict accepts for a 0-dim param or buffer. Throws what
/// serialize_safetensors throws, and InvalidArgument "[save_safetensors] <path>: ..." with the
/// system's reason when the file cannot be written (no such directory, a directory in the way,
/// disk full); path is then left as it was and no temporary file remains.
void save_safetensors(const Record& record, const std::filesystem::path& path);

/// Reads the safetensors file at path (see deserialize_safetensors). InvalidArgument
/// "[load_safetensors] <path>: ..." when it cannot be read or is not a valid safetensors file.
Record load_safetensors(const std::filesystem::path& path);

}  // namespace ember::record
