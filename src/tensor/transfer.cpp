// Moving tensors between devices and host, and switching their autodiff flag.
#include "ember/tensor_ops.h"
#include "tensor/check.h"
#include "tensor/tensor_impl.h"

namespace ember::ops {

TensorHandle to_device(const TensorHandle& x, const Device& device) {
  const DType dtype = tensor::tensor_dtype(x, "to_device");
  // Through the host: the only path every pair of backends shares. The dtype travels unchanged.
  return from_data(into_data(x), TensorCreationOptions(device).with_dtype(dtype), kind_of(dtype));
}

TensorHandle with_autodiff(const TensorHandle& x, bool autodiff) {
  const detail::TensorImpl& impl = tensor::impl_of(x, "with_autodiff");
  // Unchanged context keeps the tensor as it is, graph included; switching rebuilds the handle,
  // so the result is a constant of the new context.
  if (impl.device.is_autodiff() == autodiff) return x;
  Device device = autodiff ? impl.device.autodiff() : impl.device.without_autodiff();
  return detail::make_handle(std::move(device), impl.context, impl.meta, impl.buffer);
}

TensorData into_data(const TensorHandle& x) {
  const detail::TensorImpl& impl = tensor::impl_of(x, "into_data");
  return impl.context->read(impl.operand());
}

}  // namespace ember::ops
