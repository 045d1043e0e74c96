#include "backends/flex/view.h"

#include <utility>

namespace ember::flex {

View View::contiguous(std::shared_ptr<const Storage> storage, Shape shape, DType dtype,
                      int64_t offset) {
  std::vector<int64_t> strides = shape.contiguous_strides();
  return View{std::move(storage), offset, std::move(strides), std::move(shape), dtype};
}

bool View::is_contiguous() const {
  if (num_elements() == 0) return true;
  int64_t expected = 1;
  for (std::size_t d = shape.rank(); d-- > 0;) {
    if (shape[d] == 1) continue;
    if (strides[d] != expected) return false;
    expected *= shape[d];
  }
  return true;
}

OutputTensor::OutputTensor(const ir::TensorMeta& meta)
    : storage_(std::make_shared<Storage>(static_cast<std::size_t>(meta.shape.num_elements()) *
                                         dtype_size(meta.dtype))),
      view_(View::contiguous(storage_, meta.shape, meta.dtype)) {}

}  // namespace ember::flex
