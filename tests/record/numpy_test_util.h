// Helpers shared by the NumPy file tests: .npy files built by hand (prefix, header text, data),
// independent of the writer under test.
#pragma once

#include <cstdint>
#include <string>

#include "record_test_util.h"

namespace ember::record::test {

/// A .npy file: the magic, version major.0, header's length in 2 (1.0) or 4 (2.0, 3.0)
/// little-endian bytes, header as given (no padding added), then data.
inline Bytes npy_file(const std::string& header, const Bytes& data, int major = 1) {
  Bytes file = bytes_of({0x93, 'N', 'U', 'M', 'P', 'Y', major, 0});
  const int length_size = major == 1 ? 2 : 4;
  for (int i = 0; i < length_size; ++i)
    file.push_back(static_cast<std::byte>((header.size() >> (8 * i)) & 0xff));
  for (const char c : header)
    file.push_back(static_cast<std::byte>(c));
  file.insert(file.end(), data.begin(), data.end());
  return file;
}

/// header padded with spaces and a newline so that the data of a version 1.0 file starts at a
/// multiple of 64 bytes, as numpy.save pads it.
inline std::string padded_header(std::string header) {
  const std::size_t length = header.size() + 1;
  header.append(64 - (10 + length) % 64, ' ');
  return header + "\n";
}

}  // namespace ember::record::test
