// Writing .npy files exactly as numpy.save does (numpy/lib/format.py), so a file ember writes can
// be compared byte for byte with one NumPy wrote.
#include <cstdint>
#include <sstream>
#include <string>

#include "ember/record/numpy.h"
#include "npy_format.h"

namespace ember::record {
namespace detail {
namespace {

constexpr std::size_t kAlign = 64;  // numpy's ARRAY_ALIGN: the data starts on this boundary
// numpy leaves room after the dict for the first dim to grow to this many digits, so that an
// array can be appended to in place (GROWTH_AXIS_MAX_DIGITS, NumPy >= 1.23).
constexpr std::size_t kGrowthDigits = 21;

/// Python's repr of the shape tuple: (), (3,), (2, 3).
std::string shape_repr(const Shape& shape) {
  std::ostringstream out;
  out << '(';
  for (std::size_t i = 0; i < shape.rank(); ++i)
    out << (i ? ", " : "") << shape[i];
  out << (shape.rank() == 1 ? ",)" : ")");
  return out.str();
}

}  // namespace

std::vector<std::byte> serialize_npy_with(const TensorData& data, const Failure& fail) {
  const auto descr = npy_descr(data.dtype());
  if (!descr)
    fail("dtype ", data.dtype(),
         " has no NumPy dtype (NumPy has no bfloat16); convert the tensor to f32 first");
  // Keys sorted, each "'key': repr(value), ", as numpy's _write_array_header.
  std::string header = "{'descr': '" + std::string(*descr) +
                       "', 'fortran_order': False, 'shape': " + shape_repr(data.shape()) + ", }";
  if (data.shape().rank() > 0)
    header.append(kGrowthDigits - std::to_string(data.shape()[0]).size(), ' ');

  // Version 1.0 holds a header of up to 65535 bytes; 2.0 the rest (numpy's _wrap_header).
  uint8_t major = 1;
  std::size_t length_size = 2;
  const std::size_t with_newline = header.size() + 1;
  std::size_t padding = kAlign - (6 + 2 + length_size + with_newline) % kAlign;
  if (with_newline + padding > 0xffff) {
    major = 2;
    length_size = 4;
    padding = kAlign - (6 + 2 + length_size + with_newline) % kAlign;
  }
  const std::size_t header_length = with_newline + padding;
  if (header_length > 0xffffffffu) fail("the .npy header of shape ", data.shape(), " is too long");

  std::vector<std::byte> file;
  file.reserve(6 + 2 + length_size + header_length + data.bytes().size());
  const auto put = [&](auto byte) { file.push_back(static_cast<std::byte>(byte)); };
  for (const char c : std::string_view("\x93NUMPY"))
    put(c);
  put(major);
  put(0);
  for (std::size_t i = 0; i < length_size; ++i)
    put((header_length >> (8 * i)) & 0xff);
  for (const char c : header)
    put(c);
  for (std::size_t i = 0; i < padding; ++i)
    put(' ');
  put('\n');
  file.insert(file.end(), data.bytes().begin(), data.bytes().end());
  return file;
}

}  // namespace detail

std::vector<std::byte> serialize_npy(const TensorData& data) {
  return detail::serialize_npy_with(data, detail::Failure("save_npy", ""));
}

}  // namespace ember::record
