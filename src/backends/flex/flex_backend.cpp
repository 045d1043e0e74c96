#include "backends/flex/flex_backend.h"

#include <memory>
#include <typeinfo>
#include <utility>
#include <variant>

#include "backends/flex/copy.h"
#include "backends/flex/fallback.h"
#include "backends/flex/fused.h"
#include "backends/flex/kernels.h"
#include "backends/flex/thread_pool.h"

namespace ember::flex {
namespace {

const View& view_of(const backend::Operand& operand) {
  // Note: FlexBuffer is final, so comparing the exact type suffices; a dynamic_cast (a walk of
  // the class hierarchy) is a noticeable part of an op on a tiny tensor.
  const backend::Buffer* buffer = operand.buffer.get();
  if (buffer == nullptr || typeid(*buffer) != typeid(FlexBuffer)) {
    throw InvalidArgument("[flex] operand buffer does not belong to the flex backend");
  }
  return static_cast<const FlexBuffer*>(buffer)->view;
}

/// The views of operands as the kernels take them. A lone operand's view is passed in place;
/// several are copied into storage (each copy allocates).
Views views_of(std::span<const backend::Operand> operands, std::vector<View>& storage) {
  if (operands.size() == 1) return {&view_of(operands.front()), 1};
  storage.reserve(operands.size());
  for (const backend::Operand& operand : operands)
    storage.push_back(view_of(operand));
  return storage;
}

std::vector<backend::BufferPtr> buffers_of(std::vector<View> results) {
  std::vector<backend::BufferPtr> buffers;
  buffers.reserve(results.size());
  for (View& result : results)
    buffers.push_back(std::make_shared<FlexBuffer>(std::move(result)));
  return buffers;
}

/// op's outputs: from its flex kernel when it has one that accepts the inputs, else from ndarray.
template <typename Op>
std::vector<backend::BufferPtr> run_op(const Op& op, Views in, Outputs out) {
  if constexpr (HasFlexKernel<Op>) {
    if (std::optional<View> result = run(op, in, out))
      return {std::make_shared<FlexBuffer>(*std::move(result))};
  } else if constexpr (HasFlexMultiKernel<Op>) {
    if (std::optional<std::vector<View>> results = run(op, in, out))
      return buffers_of(*std::move(results));
  }
  return buffers_of(run_on_ndarray(op, in, out));
}

}  // namespace

std::string FlexBackend::description() const {
  return "fast CPU backend (strided views, OpenBLAS, Highway SIMD, " +
         std::to_string(ThreadPool::instance().threads()) + " threads)";
}

std::vector<backend::BufferPtr> FlexBackend::execute(const ir::Op& op,
                                                     std::span<const backend::Operand> inputs,
                                                     std::span<const ir::TensorMeta> outputs) {
  const AllocatorScope allocating(allocator_);
  std::vector<View> storage;
  const Views views = views_of(inputs, storage);
  return std::visit([&](const auto& o) { return run_op(o, views, outputs); }, op);
}

std::vector<backend::BufferPtr> FlexBackend::execute_fused(const fusion::Program& program,
                                                           std::span<const backend::Operand> inputs,
                                                           std::span<const Scalar> constants,
                                                           const Shape& shape) {
  const AllocatorScope allocating(allocator_);
  std::vector<View> storage;
  return buffers_of(run_fused(program, views_of(inputs, storage), constants, shape));
}

backend::BufferPtr FlexBackend::write(const TensorData& data) {
  const AllocatorScope allocating(allocator_);
  return std::make_shared<FlexBuffer>(from_tensor_data(data));
}

TensorData FlexBackend::read(const backend::Operand& operand) {
  return to_tensor_data(view_of(operand));
}

}  // namespace ember::flex
