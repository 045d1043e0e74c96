// Helpers shared by the ember::data tests: a scratch directory, file writers and readers (plain
// and gzip, through zlib's own, independent of the IDX code under test), IDX images built byte by
// byte, and error capture.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>
#include <zlib.h>

#include <array>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <numeric>
#include <span>
#include <string>
#include <system_error>
#include <vector>

#include "ember/data/dataloader.h"
#include "ember/data/dataset.h"
#include "ember/data/in_memory_dataset.h"
#include "ember/error.h"
#include "support/invalid_argument.h"
#include "support/temp_dir.h"

namespace ember::data::test {

using Bytes = std::vector<uint8_t>;

/// A fresh directory, removed on destruction (tests/support/temp_dir.h).
using ember::test::TempDir;

inline std::filesystem::path write_plain(const std::filesystem::path& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  if (!out) ADD_FAILURE() << "cannot write " << path;
  return path;
}

/// bytes gzip-compressed, as gzip(1) would store them.
inline Bytes gzip(const Bytes& bytes) {
  z_stream stream{};
  constexpr int kGzipWindowBits = 15 + 16;  // +16 asks zlib for a gzip wrapper
  if (deflateInit2(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, kGzipWindowBits, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    ADD_FAILURE() << "deflateInit2 failed";
    return {};
  }
  Bytes out(deflateBound(&stream, bytes.size()));
  stream.next_in = const_cast<Bytef*>(bytes.data());
  stream.avail_in = static_cast<uInt>(bytes.size());
  stream.next_out = out.data();
  stream.avail_out = static_cast<uInt>(out.size());
  if (deflate(&stream, Z_FINISH) != Z_STREAM_END) ADD_FAILURE() << "deflate failed";
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

inline std::filesystem::path write_gzip(const std::filesystem::path& path, const Bytes& bytes) {
  return write_plain(path, gzip(bytes));
}

/// The bytes of the file at path, as stored.
inline Bytes read_plain(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) ADD_FAILURE() << "cannot read " << path;
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// The data of the gzip file at path, through zlib's file reader.
inline Bytes read_gzip(const std::filesystem::path& path) {
  const gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) {
    ADD_FAILURE() << "cannot open " << path;
    return {};
  }
  if (gzdirect(file) != 0) ADD_FAILURE() << path << " is not gzip";
  Bytes data;
  std::array<uint8_t, 4096> chunk;
  int got = 0;
  while ((got = gzread(file, chunk.data(), chunk.size())) > 0)
    data.insert(data.end(), chunk.begin(), chunk.begin() + got);
  if (got < 0) ADD_FAILURE() << "gzread failed on " << path;
  gzclose(file);
  return data;
}

/// bytes as uint8_t, to compare with Bytes.
inline Bytes to_bytes(std::span<const std::byte> bytes) {
  const auto* first = reinterpret_cast<const uint8_t*>(bytes.data());
  return Bytes(first, first + bytes.size());
}

/// An IDX file: zero, zero, type code, dim count, the dims as big-endian u32, then payload
/// (already big-endian).
inline Bytes idx_bytes(uint8_t type_code, const std::vector<uint32_t>& dims, const Bytes& payload) {
  Bytes out = {0, 0, type_code, static_cast<uint8_t>(dims.size())};
  for (uint32_t d : dims) {
    for (int shift = 24; shift >= 0; shift -= 8)
      out.push_back(static_cast<uint8_t>(d >> shift));
  }
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

using ember::test::invalid_argument_message;  // support/invalid_argument.h

/// Every item of dataset, in index order.
template <typename Item>
std::vector<Item> all_items(const Dataset<Item>& dataset) {
  std::vector<Item> items;
  for (std::size_t i = 0; i < dataset.len(); ++i)
    items.push_back(dataset.get(i).value());
  return items;
}

/// A dataset of the ints 0, 1, ..., n - 1.
inline DatasetPtr<int> iota_dataset(int n) {
  std::vector<int> items(static_cast<std::size_t>(n));
  std::iota(items.begin(), items.end(), 0);
  return in_memory(items);
}

/// Every batch of an epoch, in order.
template <typename Batch>
std::vector<Batch> collect(Epoch<Batch> epoch) {
  std::vector<Batch> batches;
  for (Batch& b : epoch)
    batches.push_back(b);
  return batches;
}

}  // namespace ember::data::test
