// The IDX reader (idx.h): zlib reads gzip and plain files alike; every size is checked before
// it is trusted.
#include "ember/data/idx.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "ember/error.h"

namespace ember::data {
namespace {

namespace fs = std::filesystem;

/// Deflate never expands data more than 1032:1, so a gzip file of n bytes decompresses to at most
/// 1032 n bytes: a header claiming more is lying, and is refused before anything is allocated.
constexpr uint64_t kMaxDeflateRatio = 1032;
constexpr std::size_t kMagicBytes = 4;
constexpr std::size_t kDimBytes = 4;

template <typename... Parts>
[[noreturn]] void fail(const fs::path& path, const Parts&... parts) {
  std::ostringstream message;
  message << "[read_idx] " << path.string() << ": ";
  (message << ... << parts);
  throw InvalidArgument(message.str());
}

/// The dtype of an IDX element type code, or nullopt for an unknown code.
std::optional<DType> dtype_of_code(uint8_t code) {
  switch (code) {
    case 0x08:
      return DType::U8;
    case 0x09:
      return DType::I8;
    case 0x0B:
      return DType::I16;
    case 0x0C:
      return DType::I32;
    case 0x0D:
      return DType::F32;
    case 0x0E:
      return DType::F64;
    default:
      return std::nullopt;
  }
}

std::string hex_byte(uint8_t b) {
  std::ostringstream out;
  out << "0x" << std::hex << std::setw(2) << std::setfill('0') << static_cast<int>(b);
  return out.str();
}

/// A file read through zlib's gz* functions, which decompress gzip and pass other files through
/// unchanged ("transparent" mode), so that both take one code path.
class GzReader {
 public:
  explicit GzReader(const fs::path& path) : path_(path) {
    errno = 0;
    file_ = gzopen(path.c_str(), "rb");
    if (file_ == nullptr) fail(path, "cannot open: ", std::strerror(errno));
    gzbuffer(file_, 1 << 17);  // fewer system calls than the default 8 KiB
  }
  GzReader(const GzReader&) = delete;
  GzReader& operator=(const GzReader&) = delete;
  ~GzReader() { gzclose(file_); }

  bool is_gzip() { return gzdirect(file_) == 0; }

  /// Reads up to out.size() bytes; fewer only at the end of the data. Throws on a gzip error
  /// (a truncated stream included).
  std::size_t read(std::span<std::byte> out) {
    constexpr std::size_t kMaxChunk = std::size_t{1} << 30;  // gzread counts in unsigned int
    std::size_t total = 0;
    while (total < out.size()) {
      const auto chunk = static_cast<unsigned>(std::min(out.size() - total, kMaxChunk));
      const int got = gzread(file_, out.data() + total, chunk);
      check_error();
      if (got <= 0) break;
      total += static_cast<std::size_t>(got);
    }
    return total;
  }

  /// Reads and counts whatever is left.
  uint64_t count_remaining() {
    std::array<std::byte, 1 << 16> scratch;
    uint64_t count = 0;
    while (const std::size_t got = read(scratch))
      count += got;
    return count;
  }

 private:
  void check_error() {
    int code = Z_OK;
    const char* message = gzerror(file_, &code);
    if (code == Z_OK) return;
    if (code == Z_ERRNO) fail(path_, "read error: ", std::strerror(errno));
    if (code == Z_BUF_ERROR) fail(path_, "gzip stream is truncated");
    fail(path_, "gzip stream is corrupt (", without_path_prefix(message), ")");
  }

  /// zlib prefixes its messages with "<path>: ", which ours already name.
  std::string_view without_path_prefix(std::string_view message) const {
    const std::string prefix = path_.string() + ": ";
    if (message.starts_with(prefix)) message.remove_prefix(prefix.size());
    return message;
  }

  fs::path path_;
  gzFile file_ = nullptr;
};

struct IdxHeader {
  DType dtype;
  Shape shape;
  uint64_t header_bytes;
};

IdxHeader read_header(GzReader& reader, const fs::path& path) {
  std::array<uint8_t, kMagicBytes> magic{};
  const std::size_t got = reader.read(std::as_writable_bytes(std::span(magic)));
  if (got < kMagicBytes) {
    fail(path, "truncated header: ", got, " bytes, fewer than the ", kMagicBytes, " magic bytes");
  }
  if (magic[0] != 0 || magic[1] != 0) {
    fail(path, "bad magic ", hex_byte(magic[0]), " ", hex_byte(magic[1]),
         " (an IDX file starts with two zero bytes)");
  }
  const std::optional<DType> dtype = dtype_of_code(magic[2]);
  if (!dtype) fail(path, "unknown element type code ", hex_byte(magic[2]));
  const std::size_t rank = magic[3];
  std::vector<uint8_t> raw_dims(rank * kDimBytes);
  const std::size_t dim_bytes = reader.read(std::as_writable_bytes(std::span(raw_dims)));
  if (dim_bytes < raw_dims.size()) {
    fail(path, "truncated header: ", rank, " dims announced but only ", dim_bytes, " of their ",
         raw_dims.size(), " bytes present");
  }
  std::vector<int64_t> dims(rank);
  for (std::size_t d = 0; d < rank; ++d) {
    const uint8_t* b = &raw_dims[d * kDimBytes];
    dims[d] = (int64_t{b[0]} << 24) | (int64_t{b[1]} << 16) | (int64_t{b[2]} << 8) | b[3];
  }
  return {*dtype, Shape(std::move(dims)), kMagicBytes + rank * kDimBytes};
}

/// The payload size the header describes. Throws when the product of the dims, zero dims counted
/// as 1 (as Shape's strides count them), overflows int64 bytes: no ember tensor has that shape.
uint64_t payload_bytes(const IdxHeader& header, const fs::path& path) {
  const auto element_size = static_cast<int64_t>(dtype_size(header.dtype));
  int64_t extent = element_size;
  int64_t bytes = element_size;
  for (int64_t dim : header.shape.dims()) {
    if (__builtin_mul_overflow(extent, std::max<int64_t>(dim, 1), &extent)) {
      fail(path, "dims ", header.shape, " of ", header.dtype, " overflow 64-bit sizes");
    }
    bytes *= dim;  // cannot overflow: 0 <= bytes <= extent
  }
  return static_cast<uint64_t>(bytes);
}

[[noreturn]] void fail_payload_size(const fs::path& path, const IdxHeader& header, uint64_t need,
                                    uint64_t holds) {
  fail(path, "dims ", header.shape, " of ", header.dtype, " need ", need,
       " payload bytes but the file holds ", holds);
}

/// Refuses a payload the file cannot hold, before it is allocated: a plain file must hold it
/// exactly; a gzip file of n bytes can hold at most kMaxDeflateRatio * n.
void check_payload_fits(const IdxHeader& header, uint64_t need, uint64_t file_size, bool gzip,
                        const fs::path& path) {
  if (!gzip) {
    const uint64_t holds = file_size - std::min(file_size, header.header_bytes);
    if (need != holds) fail_payload_size(path, header, need, holds);
  } else if (need / kMaxDeflateRatio > file_size) {
    fail(path, "dims ", header.shape, " of ", header.dtype, " need ", need,
         " payload bytes, more than a gzip file of ", file_size, " bytes can hold (at most ",
         kMaxDeflateRatio, " times its size)");
  }
}

/// IDX stores values big-endian; reverses each element's bytes on a little-endian host.
void big_endian_to_native(std::span<std::byte> bytes, std::size_t element_size) {
  if constexpr (std::endian::native == std::endian::little) {
    if (element_size == 1) return;
    for (std::size_t i = 0; i < bytes.size(); i += element_size) {
      std::reverse(bytes.begin() + i, bytes.begin() + i + element_size);
    }
  }
}

/// Up to need bytes, read in chunks so that memory grows with the data actually present: a
/// header that passed check_payload_fits but lies still allocates little more than the file
/// decompresses to.
std::vector<std::byte> read_payload(GzReader& reader, uint64_t need) {
  constexpr uint64_t kChunk = uint64_t{16} << 20;
  std::vector<std::byte> payload;
  while (payload.size() < need) {
    const std::size_t old_size = payload.size();
    const auto chunk = static_cast<std::size_t>(std::min(need - old_size, kChunk));
    payload.resize(old_size + chunk);
    const std::size_t got = reader.read(std::span(payload).subspan(old_size));
    payload.resize(old_size + got);
    if (got < chunk) break;
  }
  return payload;
}

uint64_t regular_file_size(const fs::path& path) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (!fs::exists(status)) fail(path, "cannot open: no such file");
  if (!fs::is_regular_file(status)) fail(path, "not a regular file");
  const uintmax_t size = fs::file_size(path, error);
  if (error) fail(path, "cannot read its size: ", error.message());
  return size;
}

}  // namespace

TensorData read_idx(const fs::path& path) {
  const uint64_t file_size = regular_file_size(path);
  GzReader reader(path);
  const IdxHeader header = read_header(reader, path);
  const uint64_t need = payload_bytes(header, path);
  check_payload_fits(header, need, file_size, reader.is_gzip(), path);

  std::vector<std::byte> payload = read_payload(reader, need);
  const uint64_t extra = payload.size() < need ? 0 : reader.count_remaining();
  if (payload.size() < need || extra > 0) {
    fail_payload_size(path, header, need, payload.size() + extra);
  }
  big_endian_to_native(payload, dtype_size(header.dtype));
  return TensorData(std::move(payload), header.shape, header.dtype);
}

}  // namespace ember::data
