// Decoding ImageDecoder's images with libjpeg-turbo and libpng (image_decode.h).
#include "graph/onnx/image_decode.h"

#include <csetjmp>
#include <cstdio>  // jpeglib.h uses FILE without including it
#include <cstdlib>
#include <cstring>
#include <string>

#include <jpeglib.h>
#include <png.h>

#include "ember/error.h"

namespace ember::detail {
namespace {

[[noreturn]] void fail(const std::string& why) {
  throw InvalidArgument("[onnx] ImageDecoder: " + why);
}

bool fits(uint64_t width, uint64_t height) {
  return width > 0 && height > 0 && width * height <= static_cast<uint64_t>(kMaxImagePixels);
}

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
    fail("PNG: an image of " + std::to_string(info.width) + " x " + std::to_string(info.height) +
         " pixels (at most 2^24, none empty)");
  }
  info.format = PNG_FORMAT_RGB;
  TensorData image = TensorData::uninitialized(
      Shape{static_cast<int64_t>(info.height), static_cast<int64_t>(info.width), 3}, DType::U8);
  if (png_image_finish_read(&info, nullptr, image.bytes_mut().data(), 0, nullptr) == 0)
    fail(std::string("PNG: ") + info.message);
  return image;
}

bool starts_with(std::span<const std::byte> bytes, std::string_view signature) {
  return bytes.size() >= signature.size() &&
         std::memcmp(bytes.data(), signature.data(), signature.size()) == 0;
}

}  // namespace

TensorData decode_image(std::span<const std::byte> bytes) {
  if (starts_with(bytes, "\xFF\xD8\xFF")) return decode_jpeg(bytes);
  if (starts_with(bytes, "\x89PNG\r\n\x1A\n")) return decode_png(bytes);
  fail("the bytes are neither a JPEG nor a PNG (the formats this ember decodes)");
}

}  // namespace ember::detail
