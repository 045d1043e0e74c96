#include "tensor/dispatch.h"

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "autodiff/tape.h"
#include "core/inline_vector.h"
#include "core/thread_kept.h"
#include "tensor/autocast.h"
#include "tensor/check.h"
#include "tensor/tensor_impl.h"

namespace ember::tensor {
namespace {

/// The inputs' metadata and operands of the op being dispatched, in memory the thread keeps
/// (core/thread_kept.h): metadata assigned into a kept copy reuses its shape's memory where a
/// fresh copy allocates (two per binary op).
class InputScratch {
 public:
  explicit InputScratch(std::size_t size) : size_(size) {
    Memory& memory = kept_.get();
    memory.metas.resize(std::max(memory.metas.size(), size));
    memory.operands.resize(std::max(memory.operands.size(), size));
  }
  ~InputScratch() {
    // The kept operands must not keep the inputs' buffers alive.
    for (backend::Operand& operand : kept_.get().operands)
      operand.buffer.reset();
  }
  InputScratch(const InputScratch&) = delete;
  InputScratch& operator=(const InputScratch&) = delete;

  std::span<ir::TensorMeta> metas() { return {kept_.get().metas.data(), size_}; }
  std::span<backend::Operand> operands() { return {kept_.get().operands.data(), size_}; }

 private:
  struct Memory {
    std::vector<ir::TensorMeta> metas;
    std::vector<backend::Operand> operands;
  };
  detail::ThreadKept<Memory> kept_;
  std::size_t size_;
};

/// An op's result tensors, held inline for up to two outputs: the public ops::Handles (a
/// std::vector) is made only for run's callers, so run_one allocates no list.
using Results = detail::InlineVector<TensorHandle, 2>;

/// Runs op on inputs (their metadata in scratch), whose outputs ir::infer gave as outputs, and
/// wraps each output buffer.
Results execute(const ir::Op& op, const Device& device,
                const std::shared_ptr<detail::DeviceContext>& context, InputScratch& scratch,
                std::span<const TensorHandle> inputs, ir::OutputMetas outputs) {
  const std::span<backend::Operand> operands = scratch.operands();
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    operands[i].buffer = inputs[i].impl()->buffer;
    // A swap, not a copy: both metas stay in the thread's kept memory for the next op.
    std::swap(operands[i].meta, scratch.metas()[i]);
  }
  backend::Outputs buffers = context->execute(op, operands, outputs);
  if (buffers.size() != outputs.size()) {
    // A backend bug, not a user error: report it instead of indexing past the end.
    throw ExecutionError("[" + ir::name(op) + "] backend returned " +
                         std::to_string(buffers.size()) + " buffers for " +
                         std::to_string(outputs.size()) + " outputs");
  }
  Results results;
  results.reserve(outputs.size());
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    results.push_back(
        detail::make_handle(device, context, std::move(outputs[i]), std::move(buffers[i])));
  }
  return results;
}

/// run_results for an op with an input on an autocast device (autocast, the first such input's):
/// op runs on its inputs as the policy casts them (tensor/autocast.h), and its results take
/// autocast's Device, so that the flag follows the data as autodiff's does.
Results run_autocast(const ir::Op& op, std::span<const TensorHandle> inputs,
                     const detail::TensorImpl& autocast, InputScratch& scratch) {
  const std::optional<ops::Handles> cast =
      autocast_inputs(op, *autocast.device.autocast_dtype(), inputs);
  const std::span<const TensorHandle> operands = cast ? *cast : inputs;
  if (cast) {
    for (std::size_t i = 0; i < operands.size(); ++i)
      scratch.metas()[i] = operands[i].impl()->meta;
  }
  Results results = execute(op, autocast.device, autocast.context, scratch, operands,
                            ir::infer(op, scratch.metas()));
  autodiff::record(op, operands, results);
  return results;
}

/// run's results, recorded by the autodiff tape, before they become an ops::Handles.
Results run_results(const ir::Op& op, std::span<const TensorHandle> inputs) {
  if (inputs.empty()) fail(ir::name(op), "needs at least one input tensor");
  for (const TensorHandle& input : inputs) {
    // impl_of throws for an undefined tensor; the op's name is built only then, since this
    // loop runs for every op.
    if (!input.defined()) impl_of(input, ir::name(op));
  }
  const detail::TensorImpl& first = *inputs.front().impl();
  const detail::TensorImpl* autocast = nullptr;  // the first input on an autocast device
  InputScratch scratch(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const detail::TensorImpl& impl = *inputs[i].impl();
    // The first input is on its own device: no comparison (a visit of the Device variant).
    if (i > 0 && !(impl.device == first.device)) {
      fail(ir::name(op), "tensors on different devices: ", first.device.name(), " and ",
           impl.device.name());
    }
    if (impl.device.autocast_dtype() && autocast == nullptr) [[unlikely]]
      autocast = &impl;
    scratch.metas()[i] = impl.meta;
  }
  if (autocast != nullptr) [[unlikely]]
    return run_autocast(op, inputs, *autocast, scratch);
  Results results =
      execute(op, first.device, first.context, scratch, inputs, ir::infer(op, scratch.metas()));
  autodiff::record(op, inputs, results);
  return results;
}

/// results as the public list.
ops::Handles handles(Results results) {
  return {std::make_move_iterator(results.begin()), std::make_move_iterator(results.end())};
}

}  // namespace

ops::Handles run(const ir::Op& op, std::span<const TensorHandle> inputs) {
  return handles(run_results(op, inputs));
}

ops::Handles run_inferred(const ir::Op& op, const Device& device,
                          const std::shared_ptr<detail::DeviceContext>& context,
                          std::span<const TensorHandle> inputs, ir::OutputMetas outputs) {
  InputScratch scratch(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i)
    scratch.metas()[i] = inputs[i].impl()->meta;
  return handles(execute(op, device, context, scratch, inputs, std::move(outputs)));
}

TensorHandle run_one(const ir::Op& op, std::initializer_list<TensorHandle> inputs) {
  return std::move(
      run_results(op, std::span<const TensorHandle>(inputs.begin(), inputs.size())).front());
}

TensorHandle run_on(const ir::Op& op, const Device& device,
                    const std::shared_ptr<detail::DeviceContext>& context) {
  InputScratch no_inputs(0);
  return std::move(execute(op, device, context, no_inputs, {}, ir::infer(op, {})).front());
}

}  // namespace ember::tensor
