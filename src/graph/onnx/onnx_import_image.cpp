// The importer of ONNX's ImageDecoder: the encoded bytes, which must be known while the graph is
// built, decoded on the host (image_decode.h) into a constant of the graph, in the pixel format
// asked. Where the build has no image libraries (libjpeg-turbo and libpng), ImageDecoder is not
// imported, and a model using it is refused before anything runs; one without libtiff, libwebp
// or OpenJPEG refuses that format when the image is decoded.
#include "graph/onnx/onnx_import_util.h"

#ifdef EMBER_IMAGE_DECODER
#include "graph/onnx/image_decode.h"
#endif

namespace ember::detail {
#ifdef EMBER_IMAGE_DECODER
namespace {

/// Pillow's convert("L"), which ONNX's reference applies: (19595 R + 38470 G + 7471 B + 2^15)
/// / 2^16, rounded down (the sum is not negative), exact in i64.
TensorHandle luma(const TensorHandle& rgb) {
  const TensorHandle wide = ops::cast(rgb, DType::I64);
  TensorHandle sum = ops::full_like(ops::narrow(wide, 2, 0, 1), 32768);
  const int64_t weights[] = {19595, 38470, 7471};
  for (int64_t c = 0; c < 3; ++c)
    sum = ops::add(sum, ops::mul_scalar(ops::narrow(wide, 2, c, 1), weights[c]));
  return ops::cast(ops::div_scalar(sum, 65536), DType::U8);
}

std::vector<OnnxValue> image_decoder(const OnnxNode& node) {
  const TensorData encoded = node.known(0, "encoded_stream");
  if (encoded.dtype() != DType::U8) node.fail("encoded_stream is ", encoded.dtype(), ", not u8");
  const TensorHandle rgb = constant(node, decode_image(encoded.bytes()));
  const std::string format = node.attr_string("pixel_format", "RGB");
  if (format == "RGB") return one(rgb);
  if (format == "BGR") return one(ops::flip(rgb, {2}));
  if (format == "Grayscale") return one(luma(rgb));
  node.fail("pixel_format '", format, "' (RGB, BGR, Grayscale)");
}

}  // namespace

void add_image_importers(OnnxImporters& table) {
  table.insert({{"ImageDecoder", image_decoder}});
}
#else
void add_image_importers(OnnxImporters& /*table*/) {}
#endif
}  // namespace ember::detail
