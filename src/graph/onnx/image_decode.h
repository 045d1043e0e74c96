// Decoding the encoded images of ONNX's ImageDecoder (image_decode.cpp): JPEG through Debian's
// libjpeg-turbo and PNG through libpng, which decode the node tests' images bit for bit as
// ONNX's reference (Pillow, over the same libraries) does; 24-bit uncompressed BMP and 8-bit
// binary PNM (P6, P5), which store their pixels as they are, read directly. The bytes are outside
// data: every failure is an InvalidArgument, and an image's size is checked before its pixels are
// allocated.
#pragma once

#include <cstddef>
#include <span>

#include "ember/tensor_data.h"

namespace ember::detail {

/// The most pixels a decoded image may have.
inline constexpr int64_t kMaxImagePixels = int64_t{1} << 24;

/// bytes (a JPEG, PNG, BMP or PNM, told by its signature) as u8 [height, width, 3] RGB.
/// InvalidArgument "[onnx] ImageDecoder: ..." for another format, a malformed or truncated
/// image, or one of more than kMaxImagePixels pixels.
TensorData decode_image(std::span<const std::byte> bytes);

}  // namespace ember::detail
