#include "backends/flex/fused.h"

#include <hwy/aligned_allocator.h>
#include <hwy/cache_control.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "backends/flex/elementwise_runs.h"
#include "backends/flex/float_dispatch.h"
#include "backends/flex/fused_tile.h"
#include "backends/flex/jit_program.h"
#include "backends/flex/narrow.h"
#include "backends/flex/simd.h"
#include "backends/flex/strided_loop.h"
#include "backends/flex/thread_pool.h"
#include "backends/flex/view_ops.h"
#include "backends/ndarray/element.h"

namespace ember::flex {
namespace {

/// Tiles per chunk of the thread pool: as many elements as other elementwise kernels' chunks.
constexpr int64_t kTileGrain = std::max<int64_t>(1, kElementGrain / kTileElements);

/// Copies count elements of Word stepping by stride (0: one repeated value) into dst.
template <typename Word>
void gather_run(const std::byte* src, int64_t stride, std::byte* dst, int64_t count) {
  if (stride == 1) {
    std::memcpy(dst, src, static_cast<std::size_t>(count) * sizeof(Word));
    return;
  }
  const auto* from = reinterpret_cast<const Word*>(src);
  auto* to = reinterpret_cast<Word*>(dst);
  for (int64_t j = 0; j < count; ++j)
    to[j] = from[j * stride];
}

/// How the tiles read one program input: the input broadcast to the output's shape.
class TileInput {
 public:
  TileInput(const View& input, const Shape& shape)
      : view_(broadcast_to(input, shape)),
        access_(input.num_elements() == 1 ? Access::Repeated
                : view_.is_contiguous()   ? Access::Direct
                                          : Access::Gathered),
        loop_(access_ == Access::Gathered ? walk(view_, shape) : std::nullopt) {}

  /// Elements [begin, begin + n) in row-major order, contiguous: in the input itself when it
  /// is laid out so, else copied into scratch (room for n elements).
  const std::byte* read(int64_t begin, int64_t n, std::byte* scratch) const {
    const auto size = static_cast<int64_t>(view_.element_size());
    switch (access_) {
      case Access::Direct:
        return view_.bytes() + begin * size;
      case Access::Repeated:
        gather(view_.bytes(), 0, scratch, n);
        return scratch;
      case Access::Gathered:
        loop_->for_range(begin, begin + n, [&](const StridedLoop<2>::Offsets& at, int64_t count) {
          gather(view_.bytes() + at[1] * size, loop_->inner_stride(1),
                 scratch + (at[0] - begin) * size, count);
        });
        return scratch;
    }
    return scratch;  // unreachable: every access is handled above
  }

 private:
  enum class Access : uint8_t { Direct, Repeated, Gathered };

  /// The row-major walk of view (already broadcast to shape) next to a contiguous tile.
  static std::optional<StridedLoop<2>> walk(const View& view, const Shape& shape) {
    const std::vector<int64_t> tile_strides = shape.contiguous_strides();
    return StridedLoop<2>(shape, {tile_strides, view.strides});
  }

  void gather(const std::byte* src, int64_t stride, std::byte* dst, int64_t count) const {
    if (view_.element_size() == 1) return gather_run<uint8_t>(src, stride, dst, count);
    if (view_.element_size() == 2) return gather_run<uint16_t>(src, stride, dst, count);
    gather_run<uint32_t>(src, stride, dst, count);
  }

  View view_;
  Access access_;
  std::optional<StridedLoop<2>> loop_;  ///< Gathered only
};

/// What every thread shares while a program runs.
struct TilePlan {
  explicit TilePlan(const ir::Program& p) : program(p), output_of(p.instructions.size(), -1) {}

  const ir::Program& program;
  std::vector<ir::Op> ops;          ///< the instructions' ops, constants bound
  std::vector<TileInput> inputs;    ///< per program input
  std::vector<std::byte*> outputs;  ///< per program output
  std::vector<int32_t> output_of;   ///< per instruction: its output's index, or -1
  bool streaming = false;           ///< outputs are staged in scratch, then streamed out
  bool narrow = false;  ///< bf16 / f16 values: computed in f32 slots, outputs staged, then narrowed
  const JitProgram* compiled = nullptr;  ///< the program as machine code, if it compiles
  std::vector<float> scalars;            ///< per instruction: its f32 scalar (compiled only)
};

/// Whether the program's traffic over shape exceeds kStreamingBytes.
bool streams(const ir::Program& program, Views inputs, const Shape& shape) {
  int64_t bytes = 0;
  for (const View& input : inputs)
    bytes += input.num_elements() * static_cast<int64_t>(input.element_size());
  for (const uint32_t output : program.outputs)
    bytes +=
        shape.num_elements() * static_cast<int64_t>(dtype_size(program.instructions[output].dtype));
  return bytes > kStreamingBytes;
}

/// The dtype a tile of dtype is computed in: f32 for bf16 and f16 (rounded to them after each
/// instruction, as the eager kernels round each op's result), else itself.
DType compute_dtype(DType dtype) {
  return is_narrow_float(dtype) ? DType::F32 : dtype;
}

/// op with its scalar operand rounded to dtype, when dtype is narrow: a bf16 tensor's op takes the
/// scalar as a bf16 value (ndarray::scalar_as), while the tile computes in f32.
ir::Op with_narrow_scalar(ir::Op op, DType dtype) {
  if (!is_narrow_float(dtype)) return op;
  const auto rounded = [&](const Scalar& value) {
    return Scalar(dtype == DType::BF16 ? static_cast<float>(ndarray::scalar_as<BFloat16>(value))
                                       : static_cast<float>(ndarray::scalar_as<Half>(value)));
  };
  if (auto* binary = std::get_if<ir::BinaryScalar>(&op)) binary->value = rounded(binary->value);
  if (auto* compare = std::get_if<ir::CompareScalar>(&op)) compare->value = rounded(compare->value);
  if (auto* fill = std::get_if<ir::MaskFill>(&op)) fill->value = rounded(fill->value);
  return op;
}

/// Runs tiles on one thread, in its own scratch slots (the slot plan's, then one per output
/// when the outputs are staged, and one to gather narrow inputs in).
class TileRunner {
  static constexpr int64_t kLine = 64;  ///< bytes of a cache line

 public:
  /// tile: the most elements a run covers.
  TileRunner(const TilePlan& plan, int64_t tile)
      : plan_(plan),
        slot_bytes_((tile * static_cast<int64_t>(sizeof(float)) + kLine - 1) / kLine * kLine),
        scratch_(
            hwy::AllocateAligned<std::byte>(static_cast<std::size_t>(slot_count() * slot_bytes_))),
        values_(plan.program.inputs.size() + plan.program.instructions.size()),
        compiled_inputs_(plan.program.inputs.size()),
        compiled_outputs_(plan.outputs.size()) {}

  /// Elements [begin, begin + n) of every output: the whole blocks by the compiled program
  /// when there is one, the rest by interpreting the instructions.
  void run(int64_t begin, int64_t n) {
    if (plan_.compiled != nullptr) {
      const int64_t block = plan_.compiled->block();
      const int64_t whole = n / block * block;
      if (whole > 0) run_compiled(begin, whole);
      begin += whole;
      n -= whole;
      if (n == 0) return;
    }
    interpret(begin, n);
  }

 private:
  void run_compiled(int64_t begin, int64_t n) {
    const ir::Program& program = plan_.program;
    for (std::size_t k = 0; k < program.inputs.size(); ++k) {
      const std::byte* data = plan_.inputs[k].read(begin, n, slot(program.slots.input_slots[k]));
      compiled_inputs_[k] = data;
    }
    // Streaming stores go straight from the registers to outputs aligned for them, through
    // the staging slots to the others.
    bool aligned = true;
    for (std::size_t k = 0; k < plan_.outputs.size(); ++k) {
      std::byte* data = plan_.outputs[k] + begin * element_size(k);
      aligned = aligned && reinterpret_cast<uintptr_t>(data) % kLine == 0;
      compiled_outputs_[k] = data;
    }
    const bool staged = plan_.streaming && !aligned;
    if (staged) {
      for (std::size_t k = 0; k < plan_.outputs.size(); ++k)
        compiled_outputs_[k] = staging(k);
    }
    const bool computed = plan_.compiled->run(compiled_inputs_.data(), compiled_outputs_.data(),
                                              plan_.scalars.data(), n, plan_.streaming && !staged);
    // A lane outside the compiled code's range (exp of a large value, of NaN): the tile loops
    // compute these elements again, as eager flex does.
    if (!computed) return interpret(begin, n);
    if (staged) stream_outputs(begin, n);
  }

  void interpret(int64_t begin, int64_t n) {
    const ir::Program& program = plan_.program;
    for (std::size_t k = 0; k < program.inputs.size(); ++k)
      values_[k] = read_input(k, begin, n);
    for (std::size_t i = 0; i < program.instructions.size(); ++i) {
      const ir::Instruction& instruction = program.instructions[i];
      std::byte* result = result_of(i, begin);
      args_.clear();
      for (const ir::ProgramRef arg : instruction.args)
        args_.push_back({value(arg), compute_dtype(program.dtype_of(arg))});
      run_on_tile(plan_.ops[i], args_, result, compute_dtype(instruction.dtype), n);
      if (is_narrow_float(instruction.dtype))
        round_to(instruction.dtype, reinterpret_cast<float*>(result), n);
      values_[program.inputs.size() + i] = result;
    }
    if (staged()) store_outputs(begin, n);
  }

  /// Input k's elements [begin, begin + n) as the tile computes them: a narrow input widened into
  /// its slot (gathered first, when it is not laid out row-major, in the gather slot).
  const std::byte* read_input(std::size_t k, int64_t begin, int64_t n) {
    const DType dtype = plan_.program.inputs[k].dtype;
    std::byte* own = slot(plan_.program.slots.input_slots[k]);
    if (!is_narrow_float(dtype)) return plan_.inputs[k].read(begin, n, own);
    widen(dtype, plan_.inputs[k].read(begin, n, gather_slot()), reinterpret_cast<float*>(own), n);
    return own;
  }

  /// Whether outputs are computed in staging slots, then stored.
  bool staged() const { return plan_.streaming || plan_.narrow; }

  int32_t slot_count() const {
    const auto staging = staged() ? plan_.outputs.size() : 0;
    const int32_t gather = plan_.narrow ? 1 : 0;
    return plan_.program.slots.slot_count + static_cast<int32_t>(staging) + gather;
  }
  /// Slots are sized for the widest fusible element (f32).
  std::byte* slot(int32_t index) { return scratch_.get() + index * slot_bytes_; }
  std::byte* staging(std::size_t output) {
    return slot(plan_.program.slots.slot_count + static_cast<int32_t>(output));
  }
  std::byte* gather_slot() { return slot(slot_count() - 1); }
  int64_t element_size(std::size_t output) const {
    const uint32_t instruction = plan_.program.outputs[output];
    return static_cast<int64_t>(dtype_size(plan_.program.instructions[instruction].dtype));
  }

  /// Where instruction i writes the tile starting at element begin: its slot, or its output
  /// (in the output tensor, or in its staging slot when streaming).
  std::byte* result_of(std::size_t i, int64_t begin) {
    const int32_t output = plan_.output_of[i];
    if (output < 0) return slot(plan_.program.slots.instruction_slots[i]);
    const auto k = static_cast<std::size_t>(output);
    return staged() ? staging(k) : plan_.outputs[k] + begin * element_size(k);
  }

  void stream_outputs(int64_t begin, int64_t n) {
    for (std::size_t k = 0; k < plan_.outputs.size(); ++k) {
      simd::stream_copy(staging(k), plan_.outputs[k] + begin * element_size(k),
                        n * element_size(k));
    }
  }

  /// The staged outputs into the output tensors: narrowed, streamed, or copied.
  void store_outputs(int64_t begin, int64_t n) {
    if (!plan_.narrow) return stream_outputs(begin, n);
    for (std::size_t k = 0; k < plan_.outputs.size(); ++k) {
      std::byte* out = plan_.outputs[k] + begin * element_size(k);
      const DType dtype = plan_.program.instructions[plan_.program.outputs[k]].dtype;
      if (is_narrow_float(dtype)) {
        narrow(dtype, reinterpret_cast<const float*>(staging(k)), out, n);
      } else if (plan_.streaming) {
        simd::stream_copy(staging(k), out, n * element_size(k));
      } else {
        std::memcpy(out, staging(k), static_cast<std::size_t>(n * element_size(k)));
      }
    }
  }
  const std::byte* value(ir::ProgramRef ref) const {
    return values_[ref.kind == ir::ProgramRef::Kind::Input
                       ? ref.index
                       : plan_.program.inputs.size() + ref.index];
  }

  const TilePlan& plan_;
  int64_t slot_bytes_;
  /// Aligned to cache lines (as slot_bytes_ is), so that no vector store into a slot straddles
  /// two lines.
  hwy::AlignedFreeUniquePtr<std::byte[]> scratch_;
  std::vector<const std::byte*> values_;  ///< this tile's inputs, then instruction results
  std::vector<TileArg> args_;
  std::vector<const void*> compiled_inputs_;  ///< this tile's inputs, for the compiled program
  std::vector<void*> compiled_outputs_;
};

/// Each instruction's scalar as f32, as the compiled program reads them: a scalar operand, an
/// activation's alpha (LeakyRelu's slope), else 0.
std::vector<float> f32_scalars(const std::vector<ir::Op>& ops) {
  std::vector<float> scalars;
  for (const ir::Op& op : ops) {
    const std::optional<Scalar> value = ir::scalar_of(op);
    const auto* activation = std::get_if<ir::Activation>(&op);
    scalars.push_back(value        ? ndarray::scalar_as<float>(*value)
                      : activation ? activation_parameter(*activation)
                                   : 0.0f);
  }
  return scalars;
}

}  // namespace

bool has_narrow(const ir::Program& program) {
  for (const ir::ProgramInput& input : program.inputs) {
    if (is_narrow_float(input.dtype)) return true;
  }
  for (const ir::Instruction& instruction : program.instructions) {
    if (is_narrow_float(instruction.dtype)) return true;
  }
  return false;
}

std::vector<View> run_fused(const ir::Program& program, Views inputs,
                            std::span<const Scalar> constants, const Shape& shape) {
  TilePlan plan(program);
  for (std::size_t i = 0; i < program.instructions.size(); ++i) {
    const ir::Instruction& instruction = program.instructions[i];
    // The dtype a scalar operand is rounded to: the tensor's it pairs with (the first argument's).
    const DType operand =
        instruction.args.empty() ? instruction.dtype : program.dtype_of(instruction.args[0]);
    plan.ops.push_back(with_narrow_scalar(program.bound_op(i, constants), operand));
  }
  for (const View& input : inputs)
    plan.inputs.emplace_back(input, shape);
  // Allocated here, on the calling thread (allocator.h: pool workers never allocate).
  std::vector<OutputTensor> outputs;
  for (std::size_t k = 0; k < program.outputs.size(); ++k) {
    const uint32_t instruction = program.outputs[k];
    outputs.emplace_back(ir::TensorMeta{shape, program.instructions[instruction].dtype});
    plan.outputs.push_back(outputs.back().bytes());
    plan.output_of[instruction] = static_cast<int32_t>(k);
  }
  plan.streaming = streams(program, inputs, shape);
  plan.narrow = has_narrow(program);
  // Compiled on its first run over a whole tile or more: below that, the few vectors do not
  // repay the compilation (about 20 us for the GELU) nor the code's pages.
  if (shape.num_elements() >= kTileElements) plan.compiled = compiled_program(program);
  if (plan.compiled != nullptr) plan.scalars = f32_scalars(plan.ops);
  const int64_t total = shape.num_elements();
  parallel_for((total + kTileElements - 1) / kTileElements, kTileGrain,
               [&](int64_t first, int64_t last) {
                 TileRunner runner(plan, std::min(kTileElements, total));
                 for (int64_t t = first; t < last; ++t) {
                   const int64_t begin = t * kTileElements;
                   runner.run(begin, std::min(kTileElements, total - begin));
                 }
                 // Streaming stores are weakly ordered: fenced before the chunk counts as done.
                 if (plan.streaming) hwy::FlushStream();
               });
  std::vector<View> views;
  for (const OutputTensor& output : outputs)
    views.push_back(output.view());
  return views;
}

}  // namespace ember::flex
