#include "backends/flex/flex_backend.h"

#include <memory>
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
  const auto* buffer = dynamic_cast<const FlexBuffer*>(operand.buffer.get());
  if (buffer == nullptr) {
    throw InvalidArgument("[flex] operand buffer does not belong to the flex backend");
  }
  return buffer->view;
}

std::vector<View> views_of(std::span<const backend::Operand> operands) {
  std::vector<View> views;
  views.reserve(operands.size());
  for (const backend::Operand& operand : operands)
    views.push_back(view_of(operand));
  return views;
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
std::vector<View> run_op(const Op& op, Views in, Outputs out) {
  if constexpr (HasFlexKernel<Op>) {
    if (std::optional<View> result = run(op, in, out)) return {*std::move(result)};
  } else if constexpr (HasFlexMultiKernel<Op>) {
    if (std::optional<std::vector<View>> results = run(op, in, out)) return *std::move(results);
  }
  return run_on_ndarray(op, in, out);
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
  const std::vector<View> views = views_of(inputs);
  return buffers_of(std::visit([&](const auto& o) { return run_op(o, views, outputs); }, op));
}

std::vector<backend::BufferPtr> FlexBackend::execute_fused(const fusion::Program& program,
                                                           std::span<const backend::Operand> inputs,
                                                           std::span<const Scalar> constants,
                                                           const Shape& shape) {
  const AllocatorScope allocating(allocator_);
  return buffers_of(run_fused(program, views_of(inputs), constants, shape));
}

backend::BufferPtr FlexBackend::write(const TensorData& data) {
  const AllocatorScope allocating(allocator_);
  return std::make_shared<FlexBuffer>(from_tensor_data(data));
}

TensorData FlexBackend::read(const backend::Operand& operand) {
  return to_tensor_data(view_of(operand));
}

}  // namespace ember::flex
