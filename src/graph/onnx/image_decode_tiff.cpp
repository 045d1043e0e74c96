// ImageDecoder's TIFF, through Debian's libtiff (libtiff-dev) where the build found it
// (EMBER_IMAGE_TIFF); refused, naming the library, elsewhere.
#include <cstdarg>
#include <cstdio>
#include <memory>
#include <vector>

#include "graph/onnx/image_decode.h"
#include "graph/onnx/image_decode_formats.h"

#ifdef EMBER_IMAGE_TIFF
#include <tiffio.h>
#endif

namespace ember::detail::image {
#ifdef EMBER_IMAGE_TIFF
namespace {

tmsize_t tiff_read(thandle_t handle, void* out, tmsize_t size) {
  if (size < 0) return -1;
  return static_cast<tmsize_t>(ByteSource::of(handle).read(out, static_cast<uint64_t>(size)));
}

tmsize_t tiff_write(thandle_t /*handle*/, void* /*data*/, tmsize_t /*size*/) {
  return -1;
}

/// Seeks within the bytes only: a target before the start or past the end fails.
toff_t tiff_seek(thandle_t handle, toff_t offset, int whence) {
  ByteSource& in = ByteSource::of(handle);
  const uint64_t base = whence == SEEK_CUR ? in.at : whence == SEEK_END ? in.bytes.size() : 0;
  const uint64_t target = base + offset;  // wraps for a negative offset, as libtiff passes it
  if (target > in.bytes.size()) return static_cast<toff_t>(-1);
  in.at = target;
  return target;
}

int tiff_close(thandle_t /*handle*/) {
  return 0;
}

toff_t tiff_size(thandle_t handle) {
  return ByteSource::of(handle).bytes.size();
}

int tiff_map(thandle_t /*handle*/, tdata_t* /*base*/, toff_t* /*size*/) {
  return 0;
}

void tiff_unmap(thandle_t /*handle*/, tdata_t /*base*/, toff_t /*size*/) {}

/// Keeps libtiff's first error for the exception (1: not passed on to the global handler,
/// which would print it).
int tiff_error(TIFF* /*tiff*/, void* user, const char* module, const char* format, va_list args) {
  char message[256];
  std::vsnprintf(message, sizeof message, format, args);
  ByteSource::of(user).report(std::string(module != nullptr ? module : "libtiff") + ": " + message);
  return 1;
}

/// Warnings (a tag libtiff does not know) are not printed: decoding goes on, as Pillow's.
int tiff_quiet(TIFF* /*tiff*/, void* /*user*/, const char* /*module*/, const char* /*format*/,
               va_list /*args*/) {
  return 1;
}

struct TiffClose {
  void operator()(TIFF* tiff) const { TIFFClose(tiff); }
};

std::unique_ptr<TIFF, TiffClose> open_tiff(ByteSource& in) {
  TIFFOpenOptions* options = TIFFOpenOptionsAlloc();
  // No single allocation larger than the biggest image's RGBA raster: a strip or tile size
  // read from a corrupt header cannot ask for more.
  TIFFOpenOptionsSetMaxSingleMemAlloc(options, kMaxImagePixels * 4);
  TIFFOpenOptionsSetErrorHandlerExtR(options, tiff_error, &in);
  TIFFOpenOptionsSetWarningHandlerExtR(options, tiff_quiet, nullptr);
  // "m": the bytes are read through tiff_read, never mapped.
  TIFF* tiff = TIFFClientOpenExt("ImageDecoder", "rm", &in, tiff_read, tiff_write, tiff_seek,
                                 tiff_close, tiff_size, tiff_map, tiff_unmap, options);
  TIFFOpenOptionsFree(options);
  if (tiff == nullptr) fail("TIFF: " + in.error);
  return std::unique_ptr<TIFF, TiffClose>(tiff);
}

}  // namespace

TensorData decode_tiff(std::span<const std::byte> bytes) {
  ByteSource in{bytes, 0, {}};
  const auto tiff = open_tiff(in);
  uint32_t width = 0, height = 0;
  uint16_t orientation = ORIENTATION_TOPLEFT;
  TIFFGetField(tiff.get(), TIFFTAG_IMAGEWIDTH, &width);
  TIFFGetField(tiff.get(), TIFFTAG_IMAGELENGTH, &height);
  TIFFGetFieldDefaulted(tiff.get(), TIFFTAG_ORIENTATION, &orientation);
  if (!fits(width, height)) fail_size("TIFF", width, height);
  // The rows as stored, as Pillow leaves them (it applies no orientation tag when it opens an
  // image): libtiff flips them only where asked for another orientation than the file's.
  if (orientation < ORIENTATION_TOPLEFT || orientation > ORIENTATION_BOTLEFT)
    orientation = ORIENTATION_TOPLEFT;
  std::vector<uint32_t> raster(std::size_t{width} * height);
  if (TIFFReadRGBAImageOriented(tiff.get(), width, height, raster.data(), orientation, 1) == 0)
    fail("TIFF: " + (in.error.empty() ? std::string("libtiff cannot decode it") : in.error));
  // Each pixel is packed A B G R from the high byte down; the alpha is dropped, as Pillow's
  // convert("RGB") drops it.
  return rgb_image(width, height, [&](uint64_t row, uint64_t column, std::byte* out) {
    const uint32_t abgr = raster[row * width + column];
    out[0] = static_cast<std::byte>(TIFFGetR(abgr));
    out[1] = static_cast<std::byte>(TIFFGetG(abgr));
    out[2] = static_cast<std::byte>(TIFFGetB(abgr));
  });
}
#else
TensorData decode_tiff(std::span<const std::byte> /*bytes*/) {
  fail("TIFF: this ember was built without libtiff (Debian's libtiff-dev), which decodes it");
}
#endif
}  // namespace ember::detail::image
