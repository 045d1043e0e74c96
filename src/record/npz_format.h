// The ZIP layout of .npz archives (PKWARE APPNOTE.TXT), shared by npz_read.cpp and npz_write.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "ember/record/safetensors.h"
#include "failure.h"

namespace ember::record::detail {

inline constexpr uint32_t kLocalHeaderSignature = 0x04034b50;
inline constexpr uint32_t kCentralHeaderSignature = 0x02014b50;
inline constexpr uint32_t kEndOfCentralDirSignature = 0x06054b50;
inline constexpr std::size_t kLocalHeaderSize = 30;      // before the name and extra field
inline constexpr std::size_t kCentralHeaderSize = 46;    // before the name, extra field, comment
inline constexpr std::size_t kEndOfCentralDirSize = 22;  // before the comment
inline constexpr uint16_t kMethodStored = 0;
inline constexpr uint16_t kMethodDeflate = 8;

/// The archive numpy.savez writes for arrays; fail is called for a bad name or array.
std::vector<std::byte> serialize_npz_with(std::span<const NamedData> arrays, const Failure& fail);

}  // namespace ember::record::detail
