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
