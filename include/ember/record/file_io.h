// Crash-safe whole-file writes: what every file ember saves goes through (safetensors records,
// a run's metrics.csv and curves.svg).
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>
#include <string_view>

namespace ember::record {

/// Replaces path by the concatenation of pieces, atomically and durably: the bytes go to a new
/// temporary file in path's directory, which is fsynced and renamed over path; then the directory
/// is fsynced. A reader sees the old file or the new one, never a mix, and after a crash one of
/// them is on disk. On failure InvalidArgument "[op] <path>: <reason>", with path untouched and
/// the temporary file removed.
void write_file_atomically(const std::filesystem::path& path,
                           std::span<const std::span<const std::byte>> pieces, std::string_view op);

/// write_file_atomically of text's bytes.
void write_file_atomically(const std::filesystem::path& path, std::string_view text,
                           std::string_view op);

}  // namespace ember::record
