#include "backends/flex/flex_backend.h"

#include <limits>
#include <memory>
#include <optional>
#include <typeinfo>
#include <utility>
#include <variant>

#include "backends/flex/copy.h"
#include "backends/flex/fallback.h"
#include "backends/flex/fused.h"
#include "backends/flex/host_memory.h"
#include "backends/flex/jit_program.h"
#include "backends/flex/kernels.h"
#include "backends/flex/packing_buffer.h"
#include "backends/flex/thread_pool.h"
#include "backends/flex/widened.h"
#include "backends/ndarray/strided_index.h"
#include "core/inline_vector.h"
#include "core/recycled.h"

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

/// The views of operands as the kernels take them: pointers to the buffers' own views.
class OperandViews {
 public:
  explicit OperandViews(std::span<const backend::Operand> operands) {
    pointers_.reserve(operands.size());
    for (const backend::Operand& operand : operands)
      pointers_.push_back(&view_of(operand));
  }

  Views views() const { return Views({pointers_.data(), pointers_.size()}); }

 private:
  /// Inline room for the inputs of nearly every op.
  detail::InlineVector<const View*, 4> pointers_;
};

/// A buffer of view, in a recycled block (core/recycled.h): one per op.
backend::BufferPtr buffer_of(View&& view) {
  return detail::make_recycled<FlexBuffer>(std::move(view));
}

backend::Outputs buffers_of(std::vector<View> results) {
  backend::Outputs buffers;
  buffers.reserve(results.size());
  for (View& result : results)
    buffers.push_back(buffer_of(std::move(result)));
  return buffers;
}

/// op's outputs: from its flex kernel when it has one that accepts the inputs, else from its f32
/// kernel on bf16 / f16 inputs widened (widened.h), else from ndarray.
template <typename Op>
backend::Outputs run_op(const Op& op, Views in, Outputs out) {
  if constexpr (HasFlexKernel<Op>) {
    if (std::optional<View> result = run(op, in, out)) {
      backend::Outputs buffers;  // not {buffer}, which would copy it out of the list
      buffers.push_back(buffer_of(*std::move(result)));
      return buffers;
    }
  } else if constexpr (HasFlexMultiKernel<Op>) {
    if (std::optional<std::vector<View>> results = run(op, in, out))
      return buffers_of(*std::move(results));
  }
  if constexpr (HasFlexKernel<Op> || HasFlexMultiKernel<Op>) {
    if (std::optional<std::vector<View>> results = run_widened(op, in, out))
      return buffers_of(*std::move(results));
  }
  return buffers_of(run_on_ndarray(op, in, out));
}

}  // namespace

bool FlexBackend::runs_fused_rows(const ir::Op& op, std::span<const ir::TensorMeta> inputs) const {
  if (const auto* grad = std::get_if<ir::SoftmaxGrad>(&op))
    return !grad->softmax.log ||
           ndarray::Lanes::along(inputs[0].shape, grad->softmax.dim).inner == 1;
  return true;
}

std::string FlexBackend::description() const {
  return "fast CPU backend (strided views, OpenBLAS, Highway SIMD, " +
         std::to_string(ThreadPool::instance().threads()) + " threads)";
}

backend::Outputs FlexBackend::execute(const ir::Op& op, std::span<const backend::Operand> inputs,
                                      std::span<const ir::TensorMeta> outputs) {
  const AllocatorScope allocating(allocator_);
  const OperandViews views(inputs);
  return std::visit([&](const auto& o) { return run_op(o, views.views(), outputs); }, op);
}

// The tile interpreter and the JIT keep one register type per element type: f32 lanes and bool
// bytes (fused.h); the tile interpreter computes bf16 and f16 in f32 lanes too, reading and
// writing them narrow. Ranks are unbounded: a program walks its shape as rows of the last dim.
backend::FusionSupport FlexBackend::fusion_support() const {
  backend::FusionSupport support;
  support.dtypes = {DType::F32, DType::Bool, DType::BF16, DType::F16};
  support.max_rank = std::numeric_limits<std::size_t>::max();
  support.runs_programs = true;
  return support;
}

namespace {

/// A program of one bf16 / f16 instruction on program inputs that the JIT does not compile, run
/// as the eager op: its kernel computes in L1-sized f32 chunks (narrow.h) in one pass, without
/// the tile loops' slots and rounding passes, which made a lone bf16 add 2.8x slower fused than
/// eager. nullopt for any other program.
std::optional<backend::Outputs> run_lone_narrow(const ir::Program& program, Views inputs,
                                                std::span<const Scalar> constants,
                                                const Shape& shape) {
  if (program.instructions.size() != 1 || program.outputs.size() != 1 || !has_narrow(program))
    return std::nullopt;
  if (shape.num_elements() >= kTileElements && compiled_program(program) != nullptr)
    return std::nullopt;
  const ir::Instruction& instruction = program.instructions[0];
  detail::InlineVector<const View*, 4> args;
  for (const ir::ProgramRef ref : instruction.args) {
    if (ref.kind != ir::ProgramRef::Kind::Input) return std::nullopt;
    args.push_back(&inputs[ref.index]);
  }
  const ir::TensorMeta meta{shape, instruction.dtype};
  const Views views({args.data(), args.size()});
  return std::visit(
      [&](const auto& op) {
        return run_op(op, views, {&meta, 1});
      },
      program.bound_op(0, constants));
}

}  // namespace

backend::Outputs FlexBackend::execute_fused(const ir::Program& program,
                                            std::span<const backend::Operand> inputs,
                                            std::span<const Scalar> constants, const Shape& shape) {
  const AllocatorScope allocating(allocator_);
  const OperandViews views(inputs);
  if (std::optional<backend::Outputs> lone =
          run_lone_narrow(program, views.views(), constants, shape))
    return *std::move(lone);
  return buffers_of(run_fused(program, views.views(), constants, shape));
}

backend::BufferPtr FlexBackend::write(const TensorData& data) {
  const AllocatorScope allocating(allocator_);
  return buffer_of(from_tensor_data(data));
}

backend::BufferPtr FlexBackend::write_from(const ir::TensorMeta& meta,
                                           const std::function<void(std::span<std::byte>)>& fill) {
  const AllocatorScope allocating(allocator_);
  OutputTensor out(meta);
  fill({out.bytes(), static_cast<std::size_t>(meta.shape.num_elements()) * dtype_size(meta.dtype)});
  return buffer_of(std::move(out).view());
}

void FlexBackend::memory_cleanup() {
  release_packing_buffer();
}

TensorData FlexBackend::read(const backend::Operand& operand) {
  return to_tensor_data(view_of(operand));
}

std::optional<backend::HostMemory> FlexBackend::share_host_memory(const backend::Operand& operand) {
  return share_view(view_of(operand), operand.buffer);
}

backend::BufferPtr FlexBackend::wrap_host_memory(const backend::HostMemory& memory,
                                                 const ir::TensorMeta& meta) {
  const AllocatorScope allocating(allocator_);  // an empty tensor allocates its (empty) storage
  std::optional<View> view = view_over(memory, meta);
  return view ? buffer_of(*std::move(view)) : nullptr;
}

}  // namespace ember::flex
