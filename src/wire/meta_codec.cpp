#include "wire/meta_codec.h"

#include <iterator>
#include <string>

#include "ember/error.h"

namespace ember::wire {

void encode_meta(const Shape& shape, DType dtype, proto::Meta::Builder meta) {
  const auto& dims = shape.dims();
  meta.setShape(kj::arrayPtr(dims.data(), dims.size()));
  meta.setDtype(static_cast<uint8_t>(dtype));
}

Shape decode_shape(proto::Meta::Reader meta) {
  return Shape(to_vector<int64_t>(meta.getShape()));
}

DType decode_dtype(proto::Meta::Reader meta) {
  if (meta.getDtype() >= std::size(kAllDTypes))
    throw InvalidArgument("[remote] unknown dtype " + std::to_string(meta.getDtype()));
  return static_cast<DType>(meta.getDtype());
}

}  // namespace ember::wire
