// Whole-file reads and crash-safe whole-file writes, for records.
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>
#include <string_view>
#include <vector>

namespace ember::record::detail {

/// The bytes of the regular file at path. InvalidArgument "[op] <path>: <reason>" when it cannot
/// be opened or read, or is not a regular file.
std::vector<std::byte> read_file(const std::filesystem::path& path, std::string_view op);

/// Replaces path by the concatenation of pieces, atomically: the bytes go to a new temporary file
/// in path's directory, which is fsynced and renamed over path; then the directory is fsynced.
/// On failure InvalidArgument "[op] <path>: <reason>", with path untouched and the temporary file
/// removed.
void write_file_atomically(const std::filesystem::path& path,
                           std::span<const std::span<const std::byte>> pieces, std::string_view op);

}  // namespace ember::record::detail
