// Decoding the encoded images of ONNX's ImageDecoder (image_decode.cpp): JPEG through Debian's
// libjpeg-turbo and PNG through libpng, and where the build found them TIFF through libtiff, WebP
// through libwebp and JPEG 2000 through OpenJPEG (image_decode_formats.h), which decode the node
// tests' images bit for bit as ONNX's reference (Pillow, over the same libraries) does; 24-bit
// uncompressed BMP and 8-bit binary PNM (P6, P5), which store their pixels as they are, read
// directly. The bytes are outside
// data: every failure is an InvalidArgument, and an image's size is checked before its pixels are
// allocated.
#pragma once

#include <cstddef>
#include <span>

#include "ember/tensor_data.h"

namespace ember::detail {

/// The most pixels a decoded image may have.
inline constexpr int64_t kMaxImagePixels = int64_t{1} << 24;

/// bytes (a JPEG, PNG, BMP, PNM, TIFF, WebP or JPEG 2000, told by its signature) as u8
/// [height, width, 3] RGB. InvalidArgument "[onnx] ImageDecoder: <format>: ..." for a malformed
/// or truncated image, one of more than kMaxImagePixels pixels, or a format whose library this
/// build lacks; "[onnx] ImageDecoder: ..." for another format.
TensorData decode_image(std::span<const std::byte> bytes);

}  // namespace ember::detail
