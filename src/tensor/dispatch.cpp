#include "tensor/dispatch.h"

#include <utility>
#include <vector>

#include "autodiff/tape.h"
#include "tensor/check.h"
#include "tensor/tensor_impl.h"

namespace ember::tensor {
namespace {

/// Infers op's outputs from metas (the inputs' metadata), runs it on inputs and wraps each output
/// buffer.
ops::Handles execute(const ir::Op& op, const Device& device,
                     const std::shared_ptr<detail::DeviceContext>& context,
                     std::vector<ir::TensorMeta> metas, std::span<const TensorHandle> inputs) {
  std::vector<ir::TensorMeta> outputs = ir::infer(op, metas);
  // Note: the metadata moves into the operands once inferred from; each copy of a shape is a
  // heap allocation, a visible part of an op on a tiny tensor.
  std::vector<backend::Operand> operands;
  operands.reserve(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i)
    operands.push_back({inputs[i].impl()->buffer, std::move(metas[i])});
  std::vector<backend::BufferPtr> buffers = context->execute(op, operands, outputs);
  if (buffers.size() != outputs.size()) {
    // A backend bug, not a user error: report it instead of indexing past the end.
    throw ExecutionError("[" + ir::name(op) + "] backend returned " +
                         std::to_string(buffers.size()) + " buffers for " +
                         std::to_string(outputs.size()) + " outputs");
  }
  ops::Handles results;
  results.reserve(outputs.size());
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    results.push_back(
        detail::make_handle(device, context, std::move(outputs[i]), std::move(buffers[i])));
  }
  return results;
}

}  // namespace

ops::Handles run(const ir::Op& op, std::span<const TensorHandle> inputs) {
  if (inputs.empty()) fail(ir::name(op), "needs at least one input tensor");
  std::vector<ir::TensorMeta> metas;
  metas.reserve(inputs.size());
  for (const TensorHandle& input : inputs) {
    // impl_of throws for an undefined tensor; the op's name is built only then, since this
    // loop runs for every op.
    if (!input.defined()) impl_of(input, ir::name(op));
  }
  const detail::TensorImpl& first = *inputs.front().impl();
  for (const TensorHandle& input : inputs) {
    const detail::TensorImpl& impl = *input.impl();
    if (!(impl.device == first.device)) {
      fail(ir::name(op), "tensors on different devices: ", first.device.name(), " and ",
           impl.device.name());
    }
    metas.push_back(impl.meta);
  }
  return autodiff::record(op, inputs,
                          execute(op, first.device, first.context, std::move(metas), inputs));
}

TensorHandle run_one(const ir::Op& op, std::initializer_list<TensorHandle> inputs) {
  return run(op, std::span<const TensorHandle>(inputs.begin(), inputs.size())).front();
}

TensorHandle run_on(const ir::Op& op, const Device& device,
                    const std::shared_ptr<detail::DeviceContext>& context) {
  return execute(op, device, context, {}, {}).front();
}

}  // namespace ember::tensor
