#include "autodiff/tape.h"

#include <memory>
#include <utility>
#include <vector>

#include "autodiff/checkpoint.h"
#include "autodiff/node.h"
#include "tensor/for_autodiff.h"

namespace ember::autodiff {
namespace {

const detail::TensorImpl* first_tracked(std::span<const TensorHandle> inputs) {
  for (const TensorHandle& input : inputs) {
    if (input.impl()->node) return input.impl().get();
  }
  return nullptr;
}

bool any_float(std::span<const TensorHandle> outputs) {
  for (const TensorHandle& output : outputs) {
    if (is_float(output.impl()->meta.dtype)) return true;
  }
  return false;
}

std::vector<ir::TensorMeta> metas_of(std::span<const TensorHandle> tensors) {
  std::vector<ir::TensorMeta> metas;
  metas.reserve(tensors.size());
  for (const TensorHandle& t : tensors)
    metas.push_back(t.impl()->meta);
  return metas;
}

std::vector<Edge> edges_of(std::span<const TensorHandle> inputs) {
  std::vector<Edge> edges;
  edges.reserve(inputs.size());
  for (const TensorHandle& input : inputs)
    edges.push_back(Edge{input.impl()->node, input.impl()->output});
  return edges;
}

}  // namespace

void record(const ir::Op& op, std::span<const TensorHandle> inputs,
            std::span<TensorHandle> outputs) {
  if (!is_recording()) return;
  const detail::TensorImpl* tracked = first_tracked(inputs);
  if (tracked == nullptr || !any_float(outputs)) return;
  const BackwardRule* rule = backward_rule(op);
  if (rule == nullptr) return;

  const Device& device = tracked->device;
  SavedValues saved =
      save_for_backward(*rule, *device.gradient_checkpointing_strategy(), inputs, outputs);
  const auto node = std::make_shared<Node>(device, op, *rule, edges_of(inputs), metas_of(inputs),
                                           metas_of(outputs), std::move(saved));
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const detail::TensorImpl& out = *outputs[i].impl();
    // Integer and bool tensors are never tracked.
    if (is_float(out.meta.dtype))
      outputs[i] = detail::link(out, device, node, static_cast<uint32_t>(i));
  }
}

TensorHandle make_leaf(const TensorHandle& x) {
  const detail::TensorImpl& impl = tensor::impl_of(x, "require_grad");
  if (!impl.device.is_autodiff()) {
    tensor::fail("require_grad", "device ", impl.device.name(),
                 " has autodiff off; create the tensor on device.autodiff()");
  }
  if (!is_float(impl.meta.dtype))
    tensor::fail("require_grad", "expects a Float tensor, got ", impl.meta.dtype);
  return detail::link(impl, impl.device, std::make_shared<Node>(impl.device, impl.meta), 0);
}

}  // namespace ember::autodiff
