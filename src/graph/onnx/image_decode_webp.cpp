// ImageDecoder's WebP, through Debian's libwebp (libwebp-dev) where the build found it
// (EMBER_IMAGE_WEBP); refused, naming the library, elsewhere.
#include "graph/onnx/image_decode.h"
#include "graph/onnx/image_decode_formats.h"

#ifdef EMBER_IMAGE_WEBP
#include <webp/decode.h>
#endif

namespace ember::detail::image {
#ifdef EMBER_IMAGE_WEBP
TensorData decode_webp(std::span<const std::byte> bytes) {
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  int width = 0, height = 0;
  // The header only: the size is checked before anything is decoded or allocated.
  if (WebPGetInfo(data, bytes.size(), &width, &height) == 0)
    fail("WebP: libwebp cannot read its header (malformed, truncated or animated)");
  if (width <= 0 || height <= 0 ||
      !fits(static_cast<uint64_t>(width), static_cast<uint64_t>(height)))
    fail_size("WebP", static_cast<uint64_t>(width), static_cast<uint64_t>(height));
  TensorData image = TensorData::uninitialized(Shape{height, width, 3}, DType::U8);
  // RGB: an alpha channel is dropped (not composited), as Pillow's convert("RGB") drops it.
  auto* out = reinterpret_cast<uint8_t*>(image.bytes_mut().data());
  if (WebPDecodeRGBInto(data, bytes.size(), out, image.bytes().size(), width * 3) == nullptr)
    fail("WebP: libwebp cannot decode its " + std::to_string(width) + " x " +
         std::to_string(height) + " pixels (malformed or truncated)");
  return image;
}
#else
TensorData decode_webp(std::span<const std::byte> /*bytes*/) {
  fail("WebP: this ember was built without libwebp (Debian's libwebp-dev), which decodes it");
}
#endif
}  // namespace ember::detail::image
