#include "ember/tensor_handle.h"

#include <ostream>

#include "core/recycled.h"
#include "tensor/check.h"
#include "tensor/tensor_impl.h"

namespace ember {

TensorKind kind_of(DType d) {
  if (is_float(d)) return TensorKind::Float;
  if (is_bool(d)) return TensorKind::Bool;
  return TensorKind::Int;
}

std::ostream& operator<<(std::ostream& os, TensorKind k) {
  switch (k) {
    case TensorKind::Float:
      return os << "Float";
    case TensorKind::Int:
      return os << "Int";
    case TensorKind::Bool:
      return os << "Bool";
  }
  return os << "TensorKind(" << static_cast<int>(k) << ")";
}

// The accessors throw on an undefined handle rather than dereferencing null.
const Shape& TensorHandle::shape() const {
  return tensor::shape_of(*this, "Tensor");
}

DType TensorHandle::dtype() const {
  return tensor::tensor_dtype(*this, "Tensor");
}

const Device& TensorHandle::device() const {
  return tensor::impl_of(*this, "Tensor").device;
}

}  // namespace ember

namespace ember::detail {

TensorHandle make_handle(Device device, std::shared_ptr<DeviceContext> context, ir::TensorMeta meta,
                         backend::BufferPtr buffer, std::optional<IndexRange> known_values) {
  // In a recycled block (core/recycled.h): one per op. Built in place, not moved from a
  // temporary.
  return TensorHandle(detail::make_recycled<const TensorImpl>(std::move(device), std::move(context),
                                                              std::move(meta), std::move(buffer),
                                                              nullptr, 0, known_values));
}

}  // namespace ember::detail
