// Whole-file reads, for records (the writes are public: ember/record/file_io.h).
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

}  // namespace ember::record::detail
