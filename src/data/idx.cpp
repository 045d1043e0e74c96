// IDX images (idx.h): decoded from memory, plain or gzip, every size checked before it is trusted;
// encoded the same two ways; and the file functions around both.
#include "ember/data/idx.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iomanip>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ember/error.h"

namespace ember::data {
namespace {

namespace fs = std::filesystem;

/// Deflate never expands data more than 1032:1, so a gzip image of n bytes decompresses to at
/// most 1032 n bytes: a header claiming more is lying, and is refused before anything is
/// allocated.
constexpr uint64_t kMaxDeflateRatio = 1032;
constexpr std::size_t kMagicBytes = 4;
constexpr std::size_t kDimBytes = 4;
/// The dim count is one byte.
constexpr std::size_t kMaxRank = std::numeric_limits<uint8_t>::max();
/// zlib counts bytes in unsigned int: longer buffers go to it in pieces of this size.
constexpr std::size_t kMaxZlibChunk = std::size_t{1} << 30;
/// deflate's window bits plus 16: zlib then reads and writes the gzip wrapper.
constexpr int kGzipWindowBits = 16 + MAX_WBITS;
constexpr std::byte kGzipMagic[] = {std::byte{0x1F}, std::byte{0x8B}};

/// Throws InvalidArgument "[op] <subject>: <parts>" (the subject a file or a source), or
/// "[op] <parts>" when the subject is empty.
struct Failure {
  std::string_view op;
  std::string_view subject;

  template <typename... Parts>
  [[noreturn]] void operator()(const Parts&... parts) const {
    std::ostringstream message;
    message << "[" << op << "] ";
    if (!subject.empty()) message << subject << ": ";
    (message << ... << parts);
    throw InvalidArgument(message.str());
  }
};

/// The element types IDX holds, by their code in the header.
struct ElementType {
  uint8_t code;
  DType dtype;
};
constexpr ElementType kElementTypes[] = {{0x08, DType::U8},  {0x09, DType::I8},
                                         {0x0B, DType::I16}, {0x0C, DType::I32},
                                         {0x0D, DType::F32}, {0x0E, DType::F64}};

std::optional<DType> dtype_of_code(uint8_t code) {
  for (const ElementType& type : kElementTypes) {
    if (type.code == code) return type.dtype;
  }
  return std::nullopt;
}

std::optional<uint8_t> code_of_dtype(DType dtype) {
  for (const ElementType& type : kElementTypes) {
    if (type.dtype == dtype) return type.code;
  }
  return std::nullopt;
}

std::string hex_byte(uint8_t b) {
  std::ostringstream out;
  out << "0x" << std::hex << std::setw(2) << std::setfill('0') << static_cast<int>(b);
  return out.str();
}

/// bytes as zlib's input pointer, which zlib only reads through, but which is const only where
/// ZLIB_CONST is defined before every include of zlib.h (more than a unity batch can promise).
Bytef* zlib_input(std::span<const std::byte> bytes) {
  return const_cast<Bytef*>(reinterpret_cast<const Bytef*>(bytes.data()));
}

bool starts_with_gzip_magic(std::span<const std::byte> bytes) {
  return bytes.size() >= std::size(kGzipMagic) &&
         std::equal(std::begin(kGzipMagic), std::end(kGzipMagic), bytes.begin());
}

/// IDX stores values big-endian: reverses each element's bytes on a little-endian host. Its own
/// inverse, so it converts both ways.
void swap_big_endian(std::span<std::byte> bytes, std::size_t element_size) {
  if constexpr (std::endian::native == std::endian::little) {
    if (element_size == 1) return;
    for (std::size_t i = 0; i < bytes.size(); i += element_size) {
      std::reverse(bytes.begin() + i, bytes.begin() + i + element_size);
    }
  }
}

// ---- decoding ---------------------------------------------------------------------------------

/// The bytes an IDX image holds, in order: gzip members inflated one after another, or plain
/// bytes passed through, so that both take one code path. gzip is inflated ahead into a buffer
/// of fixed size (as zlib's file reader does), so a corrupt stream near the start is reported as
/// such rather than as the nonsense dims its first bytes decode to. A gzip error (a corrupt or
/// truncated member, trailing garbage) is thrown as soon as it is met.
class ImageReader {
 public:
  ImageReader(std::span<const std::byte> image, Failure fail)
      : input_(image), gzip_(starts_with_gzip_magic(image)), fail_(fail) {
    if (!gzip_) {
      ready_ = image;
      return;
    }
    if (inflateInit2(&stream_, kGzipWindowBits) != Z_OK) throw std::bad_alloc();
    buffer_.resize(kInflateBufferBytes);
  }
  ImageReader(const ImageReader&) = delete;
  ImageReader& operator=(const ImageReader&) = delete;
  ~ImageReader() {
    if (gzip_) inflateEnd(&stream_);
  }

  bool is_gzip() const { return gzip_; }

  /// Reads up to out.size() bytes; fewer only at the end of the data.
  std::size_t read(std::span<std::byte> out) {
    std::size_t total = 0;
    while (total < out.size() && (!ready_.empty() || refill())) {
      const std::size_t n = std::min(out.size() - total, ready_.size());
      std::copy_n(ready_.begin(), n, out.begin() + static_cast<std::ptrdiff_t>(total));
      ready_ = ready_.subspan(n);
      total += n;
    }
    return total;
  }

  /// Reads and counts whatever is left.
  uint64_t count_remaining() {
    uint64_t count = ready_.size();
    ready_ = {};
    while (refill())
      count += ready_.size();
    return count;
  }

 private:
  static constexpr std::size_t kInflateBufferBytes = std::size_t{1} << 17;

  /// Inflates the next bytes into the buffer (ready_ then views them); false at the end of the
  /// data.
  bool refill() {
    std::size_t filled = 0;
    while (gzip_ && !ended_ && filled < buffer_.size())
      filled += inflate_some(std::span(buffer_).subspan(filled));
    ready_ = std::span(buffer_).first(filled);
    return filled > 0;
  }

  /// One call of inflate into out (not empty); returns the bytes it wrote.
  std::size_t inflate_some(std::span<std::byte> out) {
    const std::size_t given = std::min(input_.size(), kMaxZlibChunk);
    stream_.next_in = zlib_input(input_);
    stream_.avail_in = static_cast<uInt>(given);
    stream_.next_out = reinterpret_cast<Bytef*>(out.data());
    stream_.avail_out = static_cast<uInt>(out.size());
    const int code = inflate(&stream_, Z_NO_FLUSH);
    input_ = input_.subspan(given - stream_.avail_in);
    // With room to write, inflate makes no progress only when it has no input left.
    if (code == Z_BUF_ERROR) fail_("gzip stream is truncated");
    if (code == Z_MEM_ERROR) throw std::bad_alloc();
    if (code != Z_OK && code != Z_STREAM_END) {
      fail_("gzip stream is corrupt (", stream_.msg != nullptr ? stream_.msg : zError(code), ")");
    }
    if (code == Z_STREAM_END) end_member();
    return out.size() - stream_.avail_out;
  }

  /// At the end of a gzip member: the data ends with the image, or goes on with the next member
  /// (gzip(1) reads concatenated members as one stream). Anything else is refused, since zlib's
  /// own file reader would silently drop it.
  void end_member() {
    if (input_.empty()) {
      ended_ = true;
    } else if (starts_with_gzip_magic(input_)) {
      inflateReset(&stream_);
    } else {
      fail_("trailing garbage: ", input_.size(), " bytes after the gzip stream");
    }
  }

  std::span<const std::byte> input_;  // gzip: the image bytes inflate has not consumed
  std::span<const std::byte> ready_;  // decoded bytes not read yet
  bool gzip_;
  bool ended_ = false;  // gzip: the last member has ended
  Failure fail_;
  z_stream stream_{};
  std::vector<std::byte> buffer_;  // gzip: what inflate writes
};

struct IdxHeader {
  DType dtype;
  Shape shape;
  uint64_t header_bytes;
};

IdxHeader read_header(ImageReader& reader, const Failure& fail) {
  std::array<uint8_t, kMagicBytes> magic{};
  const std::size_t got = reader.read(std::as_writable_bytes(std::span(magic)));
  if (got < kMagicBytes) {
    fail("truncated header: ", got, " bytes, fewer than the ", kMagicBytes, " magic bytes");
  }
  if (magic[0] != 0 || magic[1] != 0) {
    fail("bad magic ", hex_byte(magic[0]), " ", hex_byte(magic[1]),
         " (an IDX file starts with two zero bytes)");
  }
  const std::optional<DType> dtype = dtype_of_code(magic[2]);
  if (!dtype) fail("unknown element type code ", hex_byte(magic[2]));
  const std::size_t rank = magic[3];
  std::vector<uint8_t> raw_dims(rank * kDimBytes);
  const std::size_t dim_bytes = reader.read(std::as_writable_bytes(std::span(raw_dims)));
  if (dim_bytes < raw_dims.size()) {
    fail("truncated header: ", rank, " dims announced but only ", dim_bytes, " of their ",
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
uint64_t payload_bytes(const IdxHeader& header, const Failure& fail) {
  const auto element_size = static_cast<int64_t>(dtype_size(header.dtype));
  int64_t extent = element_size;
  int64_t bytes = element_size;
  for (int64_t dim : header.shape.dims()) {
    if (__builtin_mul_overflow(extent, std::max<int64_t>(dim, 1), &extent)) {
      fail("dims ", header.shape, " of ", header.dtype, " overflow 64-bit sizes");
    }
    bytes *= dim;  // cannot overflow: 0 <= bytes <= extent
  }
  return static_cast<uint64_t>(bytes);
}

[[noreturn]] void fail_payload_size(const Failure& fail, const IdxHeader& header, uint64_t need,
                                    uint64_t holds) {
  fail("dims ", header.shape, " of ", header.dtype, " need ", need,
       " payload bytes but the file holds ", holds);
}

/// Refuses a payload the image cannot hold, before it is allocated: a plain image must hold it
/// exactly; a gzip image of n bytes can hold at most kMaxDeflateRatio * n.
void check_payload_fits(const IdxHeader& header, uint64_t need, uint64_t image_size, bool gzip,
                        const Failure& fail) {
  if (!gzip) {
    const uint64_t holds = image_size - std::min(image_size, header.header_bytes);
    if (need != holds) fail_payload_size(fail, header, need, holds);
  } else if (need / kMaxDeflateRatio > image_size) {
    fail("dims ", header.shape, " of ", header.dtype, " need ", need,
         " payload bytes, more than a gzip file of ", image_size, " bytes can hold (at most ",
         kMaxDeflateRatio, " times its size)");
  }
}

/// Up to need bytes, read in chunks so that memory grows with the data actually present: a
/// header that passed check_payload_fits but lies still allocates little more than the image
/// decompresses to.
std::vector<std::byte> read_payload(ImageReader& reader, uint64_t need) {
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

// ---- encoding ---------------------------------------------------------------------------------

/// "u8, i8, ..., f64": the dtypes IDX holds, for messages.
std::string idx_dtype_names() {
  std::ostringstream names;
  for (const ElementType& type : kElementTypes)
    names << (&type == kElementTypes ? "" : ", ") << type.dtype;
  return names.str();
}

/// The header of data's image: magic, element type code, dim count, dims.
std::vector<std::byte> encode_header(const TensorData& data, const Failure& fail) {
  const std::optional<uint8_t> code = code_of_dtype(data.dtype());
  if (!code)
    fail("dtype ", data.dtype(), " has no IDX element type (IDX holds ", idx_dtype_names(), ")");
  const Shape& shape = data.shape();
  if (shape.rank() > kMaxRank) {
    fail("shape ", shape, " has ", shape.rank(), " dims, more than IDX's ", kMaxRank);
  }
  std::vector<std::byte> header = {std::byte{0}, std::byte{0}, std::byte{*code},
                                   static_cast<std::byte>(shape.rank())};
  for (const int64_t dim : shape.dims()) {
    if (dim > std::numeric_limits<uint32_t>::max()) {
      fail("shape ", shape, ": dim ", dim, " is over IDX's 32-bit limit");
    }
    for (int shift = 24; shift >= 0; shift -= 8)
      header.push_back(static_cast<std::byte>(dim >> shift));
  }
  return header;
}

/// Ends a deflate stream however its owner is left.
struct DeflateEnd {
  void operator()(z_stream* stream) const { deflateEnd(stream); }
};

/// bytes as one gzip member, as gzip(1) writes them; op names the caller in errors.
std::vector<std::byte> gzip_compress(std::span<const std::byte> bytes, std::string_view op) {
  z_stream stream{};
  if (deflateInit2(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, kGzipWindowBits, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::bad_alloc();
  }
  const std::unique_ptr<z_stream, DeflateEnd> end_stream(&stream);
  // deflateBound leaves room for all of it, so each call makes progress until the end.
  std::vector<std::byte> out(deflateBound(&stream, bytes.size()));
  std::size_t written = 0;
  for (int code = Z_OK; code != Z_STREAM_END;) {
    const std::size_t given = std::min(bytes.size(), kMaxZlibChunk);
    const std::size_t room = std::min(out.size() - written, kMaxZlibChunk);
    stream.next_in = zlib_input(bytes);
    stream.avail_in = static_cast<uInt>(given);
    stream.next_out = reinterpret_cast<Bytef*>(out.data() + written);
    stream.avail_out = static_cast<uInt>(room);
    code = deflate(&stream, given == bytes.size() ? Z_FINISH : Z_NO_FLUSH);
    if (code != Z_OK && code != Z_STREAM_END) {
      throw ExecutionError("[" + std::string(op) + "] zlib's deflate failed (" +
                           std::string(zError(code)) + ")");
    }
    bytes = bytes.subspan(given - stream.avail_in);
    written += room - stream.avail_out;
  }
  out.resize(written);
  return out;
}

std::vector<std::byte> encode_image(const TensorData& data, bool gzip, const Failure& fail) {
  std::vector<std::byte> image = encode_header(data, fail);
  const std::size_t header_size = image.size();
  image.insert(image.end(), data.bytes().begin(), data.bytes().end());
  swap_big_endian(std::span(image).subspan(header_size), dtype_size(data.dtype()));
  return gzip ? gzip_compress(image, fail.op) : image;
}

// ---- files ------------------------------------------------------------------------------------

struct CloseFile {
  void operator()(std::FILE* file) const { std::fclose(file); }
};
using File = std::unique_ptr<std::FILE, CloseFile>;

uint64_t regular_file_size(const fs::path& path, const Failure& fail) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (!fs::exists(status)) fail("cannot open: no such file");
  if (!fs::is_regular_file(status)) fail("not a regular file");
  const uintmax_t size = fs::file_size(path, error);
  if (error) fail("cannot read its size: ", error.message());
  return size;
}

/// The bytes of the regular file at path, read whole.
std::vector<std::byte> read_file(const fs::path& path, const Failure& fail) {
  const uint64_t size = regular_file_size(path, fail);
  errno = 0;
  const File file(std::fopen(path.c_str(), "rb"));
  if (!file) fail("cannot open: ", std::strerror(errno));
  std::vector<std::byte> bytes(size);
  const std::size_t got = std::fread(bytes.data(), 1, bytes.size(), file.get());
  if (std::ferror(file.get())) fail("read error: ", std::strerror(errno));
  bytes.resize(got);  // the file may have shrunk since its size was read
  return bytes;
}

}  // namespace

TensorData decode_idx(std::span<const std::byte> bytes, std::string_view source) {
  const Failure fail{"read_idx", source};
  ImageReader reader(bytes, fail);
  const IdxHeader header = read_header(reader, fail);
  const uint64_t need = payload_bytes(header, fail);
  check_payload_fits(header, need, bytes.size(), reader.is_gzip(), fail);

  std::vector<std::byte> payload = read_payload(reader, need);
  // Read to the end even when the payload is complete: a gzip image's last checksum and any
  // trailing garbage come after it.
  const uint64_t extra = payload.size() < need ? 0 : reader.count_remaining();
  if (payload.size() < need || extra > 0) {
    fail_payload_size(fail, header, need, payload.size() + extra);
  }
  swap_big_endian(payload, dtype_size(header.dtype));
  return TensorData(std::move(payload), header.shape, header.dtype);
}

TensorData read_idx(const fs::path& path) {
  const std::string source = path.string();
  return decode_idx(read_file(path, Failure{"read_idx", source}), source);
}

std::vector<std::byte> encode_idx(const TensorData& data, bool gzip) {
  return encode_image(data, gzip, Failure{"encode_idx", ""});
}

void write_idx(const fs::path& path, const TensorData& data, bool gzip) {
  const std::string target = path.string();
  const Failure fail{"write_idx", target};
  const std::vector<std::byte> image = encode_image(data, gzip, fail);
  errno = 0;
  File file(std::fopen(path.c_str(), "wb"));
  if (!file) fail("cannot open for writing: ", std::strerror(errno));
  const bool written = std::fwrite(image.data(), 1, image.size(), file.get()) == image.size();
  if (std::fclose(file.release()) != 0 || !written) fail("cannot write: ", std::strerror(errno));
}

}  // namespace ember::data
