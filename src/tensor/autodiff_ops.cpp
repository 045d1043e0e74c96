// The autodiff ops of the Tensor API: marking leaves, detaching, backward (src/autodiff/).
#include "autodiff/node.h"
#include "autodiff/tape.h"
#include "ember/autodiff.h"
#include "ember/gradient_hook.h"
#include "tensor/check.h"
#include "tensor/tensor_impl.h"

namespace ember::detail {

TensorHandle link(const TensorImpl& impl, Device device, std::shared_ptr<autodiff::Node> node,
                  uint32_t output) {
  return TensorHandle(std::make_shared<const TensorImpl>(std::move(device), impl.context, impl.meta,
                                                         impl.buffer, std::move(node), output,
                                                         impl.known_values));
}

}  // namespace ember::detail

namespace ember::ops {

TensorHandle require_grad(const TensorHandle& x) {
  // Already a leaf: keep its identity, so gradients stay keyed by the same tensor.
  if (is_require_grad(x)) return x;
  return autodiff::make_leaf(x);
}

TensorHandle set_require_grad(const TensorHandle& x, bool on) {
  return on ? require_grad(x) : detach(x);
}

bool is_require_grad(const TensorHandle& x) {
  const detail::TensorImpl& impl = tensor::impl_of(x, "is_require_grad");
  return impl.node != nullptr && impl.node->is_leaf();
}

bool is_tracked(const TensorHandle& x) {
  return tensor::impl_of(x, "is_tracked").node != nullptr;
}

TensorHandle detach(const TensorHandle& x) {
  const detail::TensorImpl& impl = tensor::impl_of(x, "detach");
  if (impl.node == nullptr) return x;
  return detail::link(impl, impl.device, nullptr, 0);
}

Gradients backward(const TensorHandle& x) {
  return autodiff::backward(x);
}

Gradients backward(const TensorHandle& x, const GradientHook& on_final) {
  return autodiff::backward(x, &on_final);
}

std::optional<uint64_t> leaf_id(const TensorHandle& x) {
  if (!x.defined()) return std::nullopt;
  const autodiff::Node* node = x.impl()->node.get();
  if (node == nullptr || !node->is_leaf()) return std::nullopt;
  return node->id;
}

}  // namespace ember::ops
