// Reading .npy files: the prefix (magic, version, header length), the header dict
// (npy_header.cpp), then the values, byte-swapped and transposed into ember's little-endian
// row-major layout.
#include <cstdint>
#include <cstring>
#include <optional>
#include <utility>

#include "ember/record/numpy.h"
#include "ember/tensor_bytes.h"
#include "npy_format.h"

namespace ember::record {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicSize = 6;

/// Reverses each element's bytes: a big-endian file on a little-endian host.
void swap_bytes(std::vector<std::byte>& bytes, std::size_t element) {
  for (std::size_t at = 0; at + element <= bytes.size(); at += element) {
    for (std::size_t i = 0; i < element / 2; ++i)
      std::swap(bytes[at + i], bytes[at + element - 1 - i]);
  }
}

/// The row-major copy of values stored column-major (Fortran order) with shape.
std::vector<std::byte> fortran_to_c(const std::vector<std::byte>& values, const Shape& shape,
                                    std::size_t element) {
  const std::size_t rank = shape.rank();
  // Column-major strides, in elements: dim k steps over the product of the dims before it.
  std::vector<std::size_t> strides(rank);
  std::size_t stride = 1;
  for (std::size_t k = 0; k < rank; ++k) {
    strides[k] = stride;
    stride *= static_cast<std::size_t>(shape[k]);
  }
  std::vector<std::byte> out(values.size());
  std::vector<int64_t> index(rank, 0);
  std::size_t source = 0;  // column-major offset of index, in elements
  const std::size_t count = values.size() / element;
  for (std::size_t i = 0; i < count; ++i) {
    std::memcpy(out.data() + i * element, values.data() + source * element, element);
    // Next row-major index: the last dim moves fastest.
    for (std::size_t k = rank; k-- > 0;) {
      if (++index[k] < shape[k]) {
        source += strides[k];
        break;
      }
      source -= strides[k] * static_cast<std::size_t>(index[k] - 1);
      index[k] = 0;
    }
  }
  return out;
}

uint32_t little_endian(std::span<const std::byte> bytes) {
  uint32_t value = 0;
  for (std::size_t i = bytes.size(); i-- > 0;)
    value = (value << 8) | static_cast<uint8_t>(bytes[i]);
  return value;
}

}  // namespace

namespace detail {

TensorData deserialize_npy_with(std::span<const std::byte> file, const Failure& fail) {
  if (file.size() < kMagicSize + 2)
    fail("file is ", file.size(), " bytes, shorter than the magic string and version (8 bytes)");
  if (std::memcmp(file.data(), kMagic, kMagicSize) != 0)
    fail("magic: the file does not start with \"\\x93NUMPY\" (not a .npy file)");
  const auto major = static_cast<unsigned>(file[6]), minor = static_cast<unsigned>(file[7]);
  if (major < 1 || major > 3 || minor != 0)
    fail("version ", major, ".", minor, " is not 1.0, 2.0 or 3.0");
  const std::size_t length_size = major == 1 ? 2 : 4;
  const std::size_t prefix = kMagicSize + 2 + length_size;
  if (file.size() < prefix)
    fail("file is ", file.size(), " bytes, shorter than the ", prefix, "-byte prefix of version ",
         major, ".0");
  const uint32_t header_length = little_endian(file.subspan(kMagicSize + 2, length_size));
  if (header_length > file.size() - prefix)
    fail("header length ", header_length, " exceeds the ", file.size() - prefix,
         " bytes after the prefix");
  const std::string_view text(reinterpret_cast<const char*>(file.data() + prefix), header_length);
  const NpyHeader header = parse_npy_header(text, fail);

  const auto needed = checked_tensor_bytes(header.shape, header.dtype);
  if (!needed)
    fail("header field 'shape': ", header.shape, " of ", header.dtype,
         " is too large: its bytes do not fit in int64");
  const std::span<const std::byte> data = file.subspan(prefix + header_length);
  if (data.size() < static_cast<uint64_t>(*needed))
    fail("data: ", data.size(), " bytes, but shape ", header.shape, " of ", header.dtype, " needs ",
         *needed, " (truncated file)");
  if (data.size() > static_cast<uint64_t>(*needed))
    fail("data: ", data.size() - static_cast<uint64_t>(*needed),
         " trailing bytes after the array's ", *needed);

  std::vector<std::byte> values(data.begin(), data.end());
  const std::size_t element = dtype_size(header.dtype);
  if (header.big_endian) swap_bytes(values, element);
  if (header.dtype == DType::Bool) {
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (static_cast<uint8_t>(values[i]) > 1)
        fail("data: bool element ", i, " is byte ", static_cast<unsigned>(values[i]),
             ", not 0 or 1");
    }
  }
  if (header.fortran_order && header.shape.rank() > 1 && !values.empty())
    values = fortran_to_c(values, header.shape, element);
  return TensorData(std::move(values), header.shape, header.dtype);
}

}  // namespace detail

TensorData deserialize_npy(std::span<const std::byte> file, std::string_view source) {
  return detail::deserialize_npy_with(file, detail::Failure("load_npy", source));
}

}  // namespace ember::record
