// TensorHandle: the untyped tensor every Tensor<D, K> wraps — shared ownership of a device
// buffer plus shape, dtype and device. Cheap to copy; never mutated by an op.
#pragma once

#include <cstdint>
#include <memory>

#include "ember/device.h"
#include "ember/dtype.h"
#include "ember/shape.h"

namespace ember {

namespace detail {
struct TensorImpl;  // defined in src/tensor/tensor_impl.h
}

/// The kind of a tensor: which dtypes it may hold.
enum class TensorKind : uint8_t { Float, Int, Bool };
/// The kind a dtype belongs to.
TensorKind kind_of(DType d);
std::ostream& operator<<(std::ostream& os, TensorKind k);

class TensorHandle {
 public:
  TensorHandle() = default;
  explicit TensorHandle(std::shared_ptr<const detail::TensorImpl> impl) : impl_(std::move(impl)) {}

  const Shape& shape() const;
  std::size_t rank() const { return shape().rank(); }
  DType dtype() const;
  TensorKind kind() const { return kind_of(dtype()); }
  /// The tensor's device, with the tensor's own autodiff flag.
  const Device& device() const;
  bool defined() const { return impl_ != nullptr; }
  const std::shared_ptr<const detail::TensorImpl>& impl() const { return impl_; }

 private:
  std::shared_ptr<const detail::TensorImpl> impl_;
};

}  // namespace ember
