// Fuzzes the decoder of ONNX's ImageDecoder (src/graph/onnx/image_decode*.cpp: JPEG through
// libjpeg-turbo, PNG through libpng, TIFF through libtiff, WebP through libwebp, JPEG 2000
// through OpenJPEG, BMP and PNM directly): bad bytes are refused with an ember::Error; an image
// decoded is u8 [height, width, 3] within the pixel bound.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.h"
#include "graph/onnx/image_decode.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const auto image = ember::fuzz::parsed_or_refused(
      [&] { return ember::detail::decode_image(ember::fuzz::input_bytes(data, size)); });
  if (!image) return 0;
  const std::vector<int64_t>& dims = image->shape().dims();
  ember::fuzz::require(image->dtype() == ember::DType::U8 && dims.size() == 3 && dims[2] == 3,
                       "an image decodes as u8 [height, width, 3]");
  ember::fuzz::require(
      dims[0] > 0 && dims[1] > 0 && dims[0] * dims[1] <= ember::detail::kMaxImagePixels,
      "an image holds 1 to 2^24 pixels");
  return 0;
}
