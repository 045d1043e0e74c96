#include "backends/ndarray/element_copy.h"

#include <cstring>

namespace ember::ndarray {

void copy_element(const TensorData& src, int64_t src_index, TensorData& dst, int64_t dst_index) {
  const std::size_t size = dtype_size(src.dtype());
  std::memcpy(dst.bytes_mut().data() + static_cast<std::size_t>(dst_index) * size,
              src.bytes().data() + static_cast<std::size_t>(src_index) * size, size);
}

TensorData gather_elements(const TensorData& src, std::span<const int64_t> src_offsets,
                           const Shape& shape) {
  TensorData dst = TensorData::zeros(shape, src.dtype());
  for (std::size_t i = 0; i < src_offsets.size(); ++i) {
    copy_element(src, src_offsets[i], dst, static_cast<int64_t>(i));
  }
  return dst;
}

void scatter_elements(const TensorData& src, std::span<const int64_t> dst_offsets,
                      TensorData& dst) {
  for (std::size_t i = 0; i < dst_offsets.size(); ++i) {
    copy_element(src, static_cast<int64_t>(i), dst, dst_offsets[i]);
  }
}

}  // namespace ember::ndarray
