// ImageDecoder's JPEG 2000 (a JP2 file or a bare codestream), through Debian's OpenJPEG
// (libopenjp2-7-dev) where the build found it (EMBER_IMAGE_JPEG2000); refused, naming the
// library, elsewhere.
#include <algorithm>
#include <memory>

#include "graph/onnx/image_decode.h"
#include "graph/onnx/image_decode_formats.h"

#ifdef EMBER_IMAGE_JPEG2000
#include <openjpeg.h>
#endif

namespace ember::detail::image {
#ifdef EMBER_IMAGE_JPEG2000
namespace {

OPJ_SIZE_T j2k_read(void* out, OPJ_SIZE_T size, void* user) {
  ByteSource& in = ByteSource::of(user);
  if (in.at >= in.bytes.size()) return static_cast<OPJ_SIZE_T>(-1);  // OpenJPEG's end of stream
  return in.read(out, size);
}

/// Skips forward or back within the bytes, stopping at either end; returns how far it went.
OPJ_OFF_T j2k_skip(OPJ_OFF_T count, void* user) {
  ByteSource& in = ByteSource::of(user);
  const auto end = static_cast<OPJ_OFF_T>(in.bytes.size()), at = static_cast<OPJ_OFF_T>(in.at);
  const OPJ_OFF_T target = count > end - at ? end : count < -at ? 0 : at + count;
  in.at = static_cast<uint64_t>(target);
  return target - at;
}

OPJ_BOOL j2k_seek(OPJ_OFF_T offset, void* user) {
  ByteSource& in = ByteSource::of(user);
  if (offset < 0 || static_cast<uint64_t>(offset) > in.bytes.size()) return OPJ_FALSE;
  in.at = static_cast<uint64_t>(offset);
  return OPJ_TRUE;
}

/// Keeps OpenJPEG's first error for the exception.
void j2k_error(const char* message, void* user) {
  ByteSource::of(user).report(message);
}

/// Warnings and progress messages are not printed.
void j2k_quiet(const char* /*message*/, void* /*user*/) {}

struct Jpeg2000Decode {
  std::unique_ptr<opj_codec_t, decltype(&opj_destroy_codec)> codec{nullptr, opj_destroy_codec};
  std::unique_ptr<opj_stream_t, decltype(&opj_stream_destroy)> stream{nullptr, opj_stream_destroy};
  std::unique_ptr<opj_image_t, decltype(&opj_image_destroy)> image{nullptr, opj_image_destroy};
};

void open_jpeg2000(Jpeg2000Decode& decode, ByteSource& in) {
  const bool jp2 = std::to_integer<int>(in.bytes[0]) == 0;  // a JP2 box, else a codestream
  decode.codec.reset(opj_create_decompress(jp2 ? OPJ_CODEC_JP2 : OPJ_CODEC_J2K));
  opj_set_error_handler(decode.codec.get(), j2k_error, &in);
  opj_set_warning_handler(decode.codec.get(), j2k_quiet, nullptr);
  opj_set_info_handler(decode.codec.get(), j2k_quiet, nullptr);
  opj_dparameters_t parameters;
  opj_set_default_decoder_parameters(&parameters);
  opj_setup_decoder(decode.codec.get(), &parameters);
  // A buffer of the bytes' size (OpenJPEG's default is 1 MiB, whatever the input).
  decode.stream.reset(opj_stream_create(
      std::min<OPJ_SIZE_T>(in.bytes.size(), OPJ_J2K_STREAM_CHUNK_SIZE), OPJ_TRUE));
  opj_stream_set_user_data(decode.stream.get(), &in, nullptr);
  opj_stream_set_user_data_length(decode.stream.get(), in.bytes.size());
  opj_stream_set_read_function(decode.stream.get(), j2k_read);
  opj_stream_set_skip_function(decode.stream.get(), j2k_skip);
  opj_stream_set_seek_function(decode.stream.get(), j2k_seek);
  opj_image_t* image = nullptr;
  const bool read = opj_read_header(decode.stream.get(), decode.codec.get(), &image) != 0;
  decode.image.reset(image);
  if (!read) fail("JPEG 2000: " + in.error);
}

/// Refuses, before the pixels are decoded (and allocated), what ember does not decode: other
/// than 1 (gray) to 4 (RGBA) components, any not 8-bit unsigned at full resolution, sYCC, or
/// more than kMaxImagePixels.
void check_header(const opj_image_t& image) {
  if (image.x1 <= image.x0 || image.y1 <= image.y0 ||
      !fits(image.x1 - image.x0, image.y1 - image.y0))
    fail_size("JPEG 2000", image.x1 - std::min(image.x0, image.x1),
              image.y1 - std::min(image.y0, image.y1));
  if (image.numcomps < 1 || image.numcomps > 4)
    fail("JPEG 2000 of " + std::to_string(image.numcomps) + " components (ember decodes 1 to 4)");
  if (image.color_space == OPJ_CLRSPC_SYCC || image.color_space == OPJ_CLRSPC_EYCC)
    fail("JPEG 2000 in YCC (ember decodes gray and RGB)");
  for (OPJ_UINT32 c = 0; c < image.numcomps; ++c) {
    const opj_image_comp_t& component = image.comps[c];
    if (component.prec != 8 || component.sgnd != 0 || component.dx != 1 || component.dy != 1)
      fail("JPEG 2000 component " + std::to_string(c) + " of " + std::to_string(component.prec) +
           (component.sgnd != 0 ? " signed" : "") + " bits, subsampled " +
           std::to_string(component.dx) + " x " + std::to_string(component.dy) +
           " (ember decodes 8-bit unsigned, not subsampled)");
  }
}

}  // namespace

TensorData decode_jpeg2000(std::span<const std::byte> bytes) {
  ByteSource in{bytes, 0, {}};
  Jpeg2000Decode decode;
  open_jpeg2000(decode, in);
  check_header(*decode.image);
  if (opj_decode(decode.codec.get(), decode.stream.get(), decode.image.get()) == 0 ||
      opj_end_decompress(decode.codec.get(), decode.stream.get()) == 0)
    fail("JPEG 2000: " + (in.error.empty() ? std::string("OpenJPEG cannot decode it") : in.error));
  const opj_image_t& image = *decode.image;
  const uint64_t width = image.x1 - image.x0, height = image.y1 - image.y0;
  for (OPJ_UINT32 c = 0; c < image.numcomps; ++c) {
    if (image.comps[c].data == nullptr || image.comps[c].w != width || image.comps[c].h != height)
      fail("JPEG 2000: component " + std::to_string(c) + " was not decoded at the image's size");
  }
  // Gray (1 component, or 2 with alpha) as R = G = B; RGB's alpha dropped, as Pillow's
  // convert("RGB") does.
  const bool gray = image.numcomps < 3;
  return rgb_image(width, height, [&](uint64_t row, uint64_t column, std::byte* out) {
    for (int c = 0; c < 3; ++c) {
      const OPJ_INT32 value = image.comps[gray ? 0 : c].data[row * width + column];
      out[c] = static_cast<std::byte>(std::clamp(value, 0, 255));
    }
  });
}
#else
TensorData decode_jpeg2000(std::span<const std::byte> /*bytes*/) {
  fail(
      "JPEG 2000: this ember was built without OpenJPEG (Debian's libopenjp2-7-dev), which "
      "decodes it");
}
#endif
}  // namespace ember::detail::image
