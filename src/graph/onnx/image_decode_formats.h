// What the decoders of ImageDecoder's formats share: image_decode.cpp (the signature dispatch,
// JPEG, PNG, BMP, PNM) and one file for each format decoded by an optional library (TIFF by
// libtiff, WebP by libwebp, JPEG 2000 by OpenJPEG), which refuses the format, naming the
// library, in a build without it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "ember/tensor_data.h"

namespace ember::detail::image {

/// Throws InvalidArgument "[onnx] ImageDecoder: " + why.
[[noreturn]] void fail(const std::string& why);

/// Whether an image of width x height is neither empty nor over kMaxImagePixels.
bool fits(uint64_t width, uint64_t height);

/// fail(format + ": an image of W x H pixels (at most 2^24, none empty)").
[[noreturn]] void fail_size(const std::string& format, uint64_t width, uint64_t height);

/// Encoded bytes read through a library's client callbacks (libtiff's, OpenJPEG's), which get
/// it as their void* user data: the read position, and the first error the library reported.
struct ByteSource {
  std::span<const std::byte> bytes;
  uint64_t at = 0;  ///< at most bytes.size()
  std::string error;

  /// The source a callback was given as user.
  static ByteSource& of(void* user) { return *static_cast<ByteSource*>(user); }

  /// Copies up to size bytes from the position into out and moves past them; how many it copied.
  uint64_t read(void* out, uint64_t size);

  /// Keeps message, its trailing newlines dropped, if it is the first error.
  void report(std::string message);
};

/// An RGB image of width x height (checked by fits) whose pixel (row, column) is written by
/// pixel(row, column, out), out pointing at its 3 bytes.
template <typename Pixel>
TensorData rgb_image(uint64_t width, uint64_t height, Pixel pixel) {
  TensorData image = TensorData::uninitialized(
      Shape{static_cast<int64_t>(height), static_cast<int64_t>(width), 3}, DType::U8);
  std::byte* out = image.bytes_mut().data();
  for (uint64_t row = 0; row < height; ++row) {
    for (uint64_t column = 0; column < width; ++column, out += 3)
      pixel(row, column, out);
  }
  return image;
}

/// A TIFF (libtiff), as u8 [height, width, 3] RGB; InvalidArgument "TIFF: ..." if malformed.
TensorData decode_tiff(std::span<const std::byte> bytes);

/// A WebP (libwebp), as u8 [height, width, 3] RGB; InvalidArgument "WebP: ..." if malformed.
TensorData decode_webp(std::span<const std::byte> bytes);

/// A JPEG 2000, JP2 file or bare codestream (OpenJPEG), as u8 [height, width, 3] RGB;
/// InvalidArgument "JPEG 2000: ..." if malformed.
TensorData decode_jpeg2000(std::span<const std::byte> bytes);

}  // namespace ember::detail::image
