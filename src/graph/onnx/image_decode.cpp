// Decoding ImageDecoder's images: the format told by its signature; JPEG and PNG with
// libjpeg-turbo and libpng, BMP and PNM directly (image_decode.h); TIFF, WebP and JPEG 2000 in
// their own files (image_decode_formats.h).
#include "graph/onnx/image_decode.h"

#include <algorithm>
#include <cctype>
#include <csetjmp>
#include <cstdio>  // jpeglib.h uses FILE without including it
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <jpeglib.h>
#include <png.h>

#include "ember/error.h"
#include "graph/onnx/image_decode_formats.h"

namespace ember::detail {
namespace image {

void fail(const std::string& why) {
  throw InvalidArgument("[onnx] ImageDecoder: " + why);
}

bool fits(uint64_t width, uint64_t height) {
  return width > 0 && height > 0 && width <= static_cast<uint64_t>(kMaxImagePixels) &&
         width * height <= static_cast<uint64_t>(kMaxImagePixels);
}

void fail_size(const std::string& format, uint64_t width, uint64_t height) {
  fail(format + ": an image of " + std::to_string(width) + " x " + std::to_string(height) +
       " pixels (at most 2^24, none empty)");
}

uint64_t ByteSource::read(void* out, uint64_t size) {
  const uint64_t count = std::min<uint64_t>(size, bytes.size() - at);
  std::memcpy(out, bytes.data() + at, count);
  at += count;
  return count;
}

void ByteSource::report(std::string message) {
  while (!message.empty() && message.back() == '\n')
    message.pop_back();
  if (error.empty()) error = std::move(message);
}

}  // namespace image

namespace {

using image::fail;
using image::fits;
using image::rgb_image;

/// libjpeg reports errors through error_exit, which must not return: it jumps back to the
/// decoder with the message. Between setjmp and longjmp only C data lives (no destructor is
/// skipped): the decoder's state and its output are in this struct.
struct JpegDecode {
  jpeg_error_mgr errors;  ///< first: libjpeg hands error_exit a pointer to it
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
  jpeg_decompress_struct info;
  unsigned char* pixels = nullptr;  ///< malloc'd RGB rows
  JDIMENSION width = 0, height = 0;
};

extern "C" void jpeg_error_exit(j_common_ptr info) {
  auto* decode = reinterpret_cast<JpegDecode*>(info->err);
  (*info->err->format_message)(info, decode->message);
  std::longjmp(decode->jump, 1);
}

/// Warnings (a corrupt but decodable stream) are not printed: the decoder goes on, as Pillow's.
extern "C" void jpeg_quiet(j_common_ptr /*info*/, int /*level*/) {}

/// Decodes into decode->pixels; false with decode->message set on failure (pixels then null).
bool run_jpeg(JpegDecode* decode, const unsigned char* data, std::size_t size) {
  decode->info.err = jpeg_std_error(&decode->errors);
  decode->errors.error_exit = jpeg_error_exit;
  decode->errors.emit_message = jpeg_quiet;
  if (setjmp(decode->jump) != 0) {
    jpeg_destroy_decompress(&decode->info);
    std::free(decode->pixels);
    decode->pixels = nullptr;
    return false;
  }
  jpeg_create_decompress(&decode->info);
  jpeg_mem_src(&decode->info, data, static_cast<unsigned long>(size));
  jpeg_read_header(&decode->info, TRUE);
  if (!fits(decode->info.image_width, decode->info.image_height)) {
    std::snprintf(decode->message, sizeof decode->message,
                  "an image of %u x %u pixels (at most 2^24, none empty)", decode->info.image_width,
                  decode->info.image_height);
    jpeg_destroy_decompress(&decode->info);
    return false;
  }
  decode->info.out_color_space = JCS_RGB;
  jpeg_start_decompress(&decode->info);
  decode->width = decode->info.output_width;
  decode->height = decode->info.output_height;
  const std::size_t stride = std::size_t{decode->width} * 3;
  decode->pixels = static_cast<unsigned char*>(std::malloc(stride * decode->height));
  while (decode->pixels != nullptr && decode->info.output_scanline < decode->height) {
    unsigned char* row = decode->pixels + decode->info.output_scanline * stride;
    jpeg_read_scanlines(&decode->info, &row, 1);
  }
  jpeg_finish_decompress(&decode->info);
  jpeg_destroy_decompress(&decode->info);
  return decode->pixels != nullptr;
}

TensorData decode_jpeg(std::span<const std::byte> bytes) {
  JpegDecode decode{};
  if (!run_jpeg(&decode, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size()))
    fail(std::string("JPEG: ") + decode.message);
  TensorData image = TensorData::uninitialized(
      Shape{static_cast<int64_t>(decode.height), static_cast<int64_t>(decode.width), 3}, DType::U8);
  std::memcpy(image.bytes_mut().data(), decode.pixels, image.bytes().size());
  std::free(decode.pixels);
  return image;
}

TensorData decode_png(std::span<const std::byte> bytes) {
  png_image info{};
  info.version = PNG_IMAGE_VERSION;
  // libpng's simplified API reports failures by its return value (and frees what it holds).
  if (png_image_begin_read_from_memory(&info, bytes.data(), bytes.size()) == 0)
    fail(std::string("PNG: ") + info.message);
  if (!fits(info.width, info.height)) {
    png_image_free(&info);
    image::fail_size("PNG", info.width, info.height);
  }
  // Read as RGBA, the alpha then dropped, as Pillow's convert("RGB") drops it: asked for RGB,
  // libpng would composite the pixels onto black instead.
  info.format = PNG_FORMAT_RGBA;
  std::vector<std::byte> rgba(PNG_IMAGE_SIZE(info));
  if (png_image_finish_read(&info, nullptr, rgba.data(), 0, nullptr) == 0)
    fail(std::string("PNG: ") + info.message);
  return rgb_image(info.width, info.height, [&](uint64_t row, uint64_t column, std::byte* out) {
    std::memcpy(out, rgba.data() + (row * info.width + column) * 4, 3);
  });
}

/// A little-endian unsigned field of bytes at offset (which the caller checked is inside).
uint32_t little_endian(std::span<const std::byte> bytes, std::size_t offset, int width) {
  uint32_t value = 0;
  for (int i = width - 1; i >= 0; --i)
    value = value << 8 | std::to_integer<uint32_t>(bytes[offset + static_cast<std::size_t>(i)]);
  return value;
}

/// BMP: 24-bit uncompressed (BI_RGB) only, rows bottom-up (or top-down where the height is
/// negative), each padded to 4 bytes, pixels stored as B, G, R.
TensorData decode_bmp(std::span<const std::byte> bytes) {
  if (bytes.size() < 54) fail("BMP: " + std::to_string(bytes.size()) + " bytes, no header");
  const uint64_t offset = little_endian(bytes, 10, 4);
  const auto width = static_cast<int32_t>(little_endian(bytes, 18, 4));
  const auto height = static_cast<int32_t>(little_endian(bytes, 22, 4));
  const uint32_t bits = little_endian(bytes, 28, 2), compression = little_endian(bytes, 30, 4);
  if (bits != 24 || compression != 0)
    fail("BMP of " + std::to_string(bits) + " bits, compression " + std::to_string(compression) +
         " (ember decodes 24-bit uncompressed BMP only)");
  const uint64_t rows = height < 0 ? -int64_t{height} : height;
  if (width <= 0 || !fits(static_cast<uint64_t>(width), rows))
    fail("BMP: an image of " + std::to_string(width) + " x " + std::to_string(height) + " pixels");
  const uint64_t stride = (uint64_t{3} * static_cast<uint64_t>(width) + 3) / 4 * 4;
  if (offset > bytes.size() || (bytes.size() - offset) / stride < rows)
    fail("BMP: " + std::to_string(bytes.size()) + " bytes do not hold its pixels");
  return rgb_image(static_cast<uint64_t>(width), rows,
                   [&](uint64_t row, uint64_t column, std::byte* out) {
                     const uint64_t stored = height < 0 ? row : rows - 1 - row;
                     const std::byte* bgr = bytes.data() + offset + stored * stride + column * 3;
                     out[0] = bgr[2];
                     out[1] = bgr[1];
                     out[2] = bgr[0];
                   });
}

/// PNM's next header number, past whitespace and comments (# to the end of the line); at
/// stops where it ends.
uint64_t pnm_number(std::span<const std::byte> bytes, std::size_t& at) {
  const auto byte = [&] { return std::to_integer<char>(bytes[at]); };
  while (at < bytes.size() && (std::isspace(static_cast<unsigned char>(byte())) || byte() == '#')) {
    if (byte() == '#') {
      while (at < bytes.size() && byte() != '\n')
        ++at;
    } else {
      ++at;
    }
  }
  uint64_t value = 0;
  const std::size_t start = at;
  for (; at < bytes.size() && std::isdigit(static_cast<unsigned char>(byte())) && at - start < 9;
       ++at)
    value = value * 10 + static_cast<uint64_t>(byte() - '0');
  if (at == start) fail("PNM: the header ends before its numbers");
  return value;
}

/// PNM: binary P6 (RGB) and P5 (gray, given as R = G = B), 8 bits (maxval 255) only.
TensorData decode_pnm(std::span<const std::byte> bytes) {
  const bool gray = std::to_integer<char>(bytes[1]) == '5';
  std::size_t at = 2;
  const uint64_t width = pnm_number(bytes, at), height = pnm_number(bytes, at);
  const uint64_t maxval = pnm_number(bytes, at);
  if (maxval != 255) fail("PNM of maxval " + std::to_string(maxval) + " (ember decodes 255 only)");
  if (!fits(width, height))
    fail("PNM: an image of " + std::to_string(width) + " x " + std::to_string(height) + " pixels");
  const uint64_t channels = gray ? 1 : 3;
  ++at;  // the one whitespace byte after maxval
  if (at > bytes.size() || (bytes.size() - at) / channels / width < height)
    fail("PNM: " + std::to_string(bytes.size()) + " bytes do not hold its pixels");
  const std::byte* pixels = bytes.data() + at;
  return rgb_image(width, height, [&](uint64_t row, uint64_t column, std::byte* out) {
    const std::byte* in = pixels + (row * width + column) * channels;
    for (uint64_t c = 0; c < 3; ++c)
      out[c] = in[gray ? 0 : c];
  });
}

bool starts_with(std::span<const std::byte> bytes, std::string_view signature) {
  return bytes.size() >= signature.size() &&
         std::memcmp(bytes.data(), signature.data(), signature.size()) == 0;
}

}  // namespace

TensorData decode_image(std::span<const std::byte> bytes) {
  if (starts_with(bytes, "\xFF\xD8\xFF")) return decode_jpeg(bytes);
  if (starts_with(bytes, "\x89PNG\r\n\x1A\n")) return decode_png(bytes);
  if (starts_with(bytes, "BM")) return decode_bmp(bytes);
  if (starts_with(bytes, "P6") || starts_with(bytes, "P5")) return decode_pnm(bytes);
  if (starts_with(bytes, std::string_view("II*\0", 4)) ||
      starts_with(bytes, std::string_view("MM\0*", 4)))
    return image::decode_tiff(bytes);
  if (starts_with(bytes, "RIFF") && bytes.size() >= 12 &&
      std::memcmp(bytes.data() + 8, "WEBP", 4) == 0)
    return image::decode_webp(bytes);
  if (starts_with(bytes, std::string_view("\0\0\0\x0CjP  \r\n\x87\n", 12)) ||
      starts_with(bytes, "\xFF\x4F\xFF\x51"))
    return image::decode_jpeg2000(bytes);
  fail("the bytes are not a JPEG, PNG, BMP, PNM, TIFF, WebP or JPEG 2000");
}

}  // namespace ember::detail
