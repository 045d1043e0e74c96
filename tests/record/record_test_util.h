// Helpers shared by the record tests: a scratch directory, raw file bytes, safetensors files built
// by hand (size + header text + buffer, independent of the writer under test), the committed
// fixtures, and error capture.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

#include "ember/error.h"
#include "support/invalid_argument.h"
#include "support/source_dir.h"
#include "support/temp_dir.h"

namespace ember::record::test {

using Bytes = std::vector<std::byte>;

/// A fresh directory, removed on destruction (tests/support/temp_dir.h).
using ember::test::TempDir;

inline Bytes read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) ADD_FAILURE() << "cannot read " << path;
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Bytes bytes(text.size());
  for (std::size_t i = 0; i < text.size(); ++i)
    bytes[i] = static_cast<std::byte>(text[i]);
  return bytes;
}

inline void write_bytes(const std::filesystem::path& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  if (!out) ADD_FAILURE() << "cannot write " << path;
}

/// Bytes from a list of byte values.
inline Bytes bytes_of(std::initializer_list<int> values) {
  Bytes bytes;
  for (int v : values)
    bytes.push_back(static_cast<std::byte>(v));
  return bytes;
}

/// A safetensors file: header_size as 8 little-endian bytes, then header, then buffer.
inline Bytes file_with_size(uint64_t header_size, const std::string& header, const Bytes& buffer) {
  Bytes file;
  for (int i = 0; i < 8; ++i)
    file.push_back(static_cast<std::byte>((header_size >> (8 * i)) & 0xff));
  for (char c : header)
    file.push_back(static_cast<std::byte>(c));
  file.insert(file.end(), buffer.begin(), buffer.end());
  return file;
}

/// A safetensors file with header's true size and a zero-filled buffer of buffer_size bytes.
inline Bytes file_of(const std::string& header, std::size_t buffer_size) {
  return file_with_size(header.size(), header, Bytes(buffer_size));
}

inline std::filesystem::path fixture(const std::string& name) {
  return std::filesystem::path(ember::test::source_dir()) / "tests" / "record" / "fixtures" / name;
}

using ember::test::invalid_argument_message;  // support/invalid_argument.h

/// Expects message to contain each of parts.
inline void expect_mentions(const std::string& message, std::initializer_list<const char*> parts) {
  for (const char* part : parts)
    EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
}

}  // namespace ember::record::test
