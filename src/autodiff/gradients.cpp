#include <optional>

#include "autodiff/node.h"
#include "ember/autodiff.h"
#include "ember/gradient_hook.h"
#include "tensor/for_autodiff.h"

namespace ember {

std::optional<TensorHandle> Gradients::get(const TensorHandle& leaf) const {
  const std::optional<uint64_t> id = ops::leaf_id(leaf);
  if (!id) return std::nullopt;
  const auto it = grads_.find(*id);
  if (it == grads_.end()) return std::nullopt;
  return it->second;
}

std::optional<TensorHandle> Gradients::remove(const TensorHandle& leaf) {
  const std::optional<uint64_t> id = ops::leaf_id(leaf);
  if (!id) return std::nullopt;
  const auto it = grads_.find(*id);
  if (it == grads_.end()) return std::nullopt;
  TensorHandle grad = std::move(it->second);
  grads_.erase(it);
  return grad;
}

void Gradients::replace(const TensorHandle& leaf, const TensorHandle& grad) {
  const std::optional<uint64_t> id = ops::leaf_id(leaf);
  if (!id) tensor::fail("grad_replace", "tensor is not a leaf that requires grad");
  const Shape& grad_shape = tensor::shape_of(grad, "grad_replace");
  if (grad_shape != leaf.shape()) {
    tensor::fail("grad_replace", "gradient shape ", grad_shape, " differs from the tensor's ",
                 leaf.shape());
  }
  // A gradient is a constant: a tracked one would tie its graph to these gradients.
  grads_.insert_or_assign(*id, ops::detach(grad));
}

void Gradients::accumulate(uint64_t leaf_id, const TensorHandle& grad) {
  const auto [it, inserted] = grads_.try_emplace(leaf_id, grad);
  if (!inserted) it->second = ops::add(it->second, grad);
}

}  // namespace ember
