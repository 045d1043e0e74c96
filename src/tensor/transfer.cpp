// Moving tensors between devices and host, and switching their autodiff flag.
#include <memory>
#include <optional>
#include <utility>

#include "ember/tensor_ops.h"
#include "tensor/check.h"
#include "tensor/tensor_impl.h"

namespace ember::ops {
namespace {

/// x's memory, wrapped by the target's backend: when x's backend keeps it in host memory and the
/// target's computes on foreign host memory (flex, cpu), the tensor moves without a copy. Null
/// otherwise. Note: safe because no op writes into its inputs, so neither side changes what the
/// other reads.
backend::BufferPtr shared_buffer(const detail::TensorImpl& x, detail::DeviceContext& target) {
  const std::optional<backend::HostMemory> memory =
      x.context->share_host_memory(x.operand(), "to_device");
  return memory ? target.wrap_host_memory(*memory, x.meta, "to_device") : nullptr;
}

}  // namespace

TensorHandle to_device(const TensorHandle& x, const Device& device) {
  const detail::TensorImpl& impl = tensor::impl_of(x, "to_device");
  std::shared_ptr<detail::DeviceContext> target = detail::DeviceContext::of(device.as_dispatch());
  target->lock_settings();  // as every tensor created on a device does
  if (backend::BufferPtr shared = shared_buffer(impl, *target)) {
    return detail::make_handle(device, std::move(target), impl.meta, std::move(shared));
  }
  // Through the host: the only path every pair of backends shares. The dtype travels unchanged.
  const DType dtype = impl.meta.dtype;
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
