// ShaderBackend: what the shader backends (vulkan, wgpu) share, written once. The routing of the
// ops: elementwise ops as programs of one instruction, fused programs, reshape as the same
// buffer, permute, flip, expand and slice as copies by the program kernel of a cast to the
// input's own dtype (its input read as a view, codegen/layout_views.h), matmul, reduce, softmax,
// sort, random, convolution, pooling, interpolation, attention and the fused row ops (row_passes.h)
// by the backend's own kernels, full, arange, cat, slice_assign and the indexing ops by its
// index-copy kernels (index_copy.h), the cumulative ops by its scan (cumulative_scan.h), and the
// host (ndarray's kernels) for every op without a kernel yet. And the Backend overrides that are
// the same on both: execute, fusion_support, execute_fused, runs_fused_attention, runs_fused_rows,
// write, read, sync, flush, the memory reports. A backend derives from
// ShaderBackend<Itself, Pages, Range> and has, for it (a friend):
//   context_     shared_ptr to its context: check_usable(), name()
//   stream_      shared_ptr to its command stream: upload(bytes, range), download(range, bytes),
//                flush(), sync()
//   pages_       shared_ptr to its Pages (locate(address, bytes) -> Range)
//   memory_      shared_ptr to the pools' MemoryManager over them
//   programs_    its ProgramKernels: runs(program, n, bytes), run(program, input ranges,
//                MergedDims, output ranges, constants, n)
//   matmul_      takes(lhs, rhs, out), run(a, b, c, lhs, rhs, out, scratch)
//   reduce_      takes(reduce, x, out), run(reduce, x, x_meta, out, out_meta)
//   softmax_     takes(softmax, x), run(softmax, x, x_meta, out)
//   sort_        takes(sort, x), run(sort, x, x_meta, values, positions)
//   random_      takes(random), run(random, out)
//   conv_pool_   a shader::ConvPoolKernels<Range> (conv_pool_kernels.h) over its sources
//   interpolate_ a shader::InterpolateKernels<Range> (interpolate_passes.h) over its sources
//   index_copy_  limits(), run(dispatch, tensors): shader/index_copy.h's
//                kernels (full, arange, cat, slice_assign, select, gather, select_assign,
//                scatter)
//   cumulative_  takes(op, dtype), limits(), run(dispatch, pass, tensors):
//                shader/cumulative_scan.h's scan
//   attention_   limits(), dispatch(pass, geometry, tensors, groups): shader/attention_passes.h's
//                kernels (ir::Attention and ir::AttentionGrad)
//   rows_        limits(), run(kernel, words, tensors, groups): the fused row
//                ops' kernels (shader/row_passes.h)
//   kDocs        its page, for the errors ("docs/backends/vulkan.md")
// and overrides name, description, supports_dtype, record_timestamp and memory_cleanup.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "backends/backend.h"
#include "backends/ndarray/index_data.h"
#include "backends/ndarray/run_on_host.h"
#include "backends/pools/memory_manager.h"
#include "backends/shader/attention_passes.h"
#include "backends/shader/cumulative_scan.h"
#include "backends/shader/host_runs.h"
#include "backends/shader/index_copy.h"
#include "backends/shader/pool_buffer.h"
#include "backends/shader/row_passes.h"
#include "codegen/kernel_dims.h"
#include "codegen/layout_views.h"
#include "core/index_range.h"
#include "ember/error.h"
#include "ember/scalar.h"
#include "fusion/op_by_op.h"
#include "ir/fused_rows.h"
#include "ir/program.h"

namespace ember::shader {

/// The bytes of a tensor of meta.
inline uint64_t bytes_of(const ir::TensorMeta& meta) {
  return static_cast<uint64_t>(meta.shape.num_elements()) * dtype_size(meta.dtype);
}

template <typename Derived, typename Pages, typename Range>
class ShaderBackend : public backend::Backend {
 public:
  using Operand = backend::Operand;
  using Outputs = backend::Outputs;
  using Buffer = PoolBuffer<Pages, Range>;

  /// op on a kernel of the device where one takes it, else on the host through ndarray's kernels.
  /// InvalidArgument for a dtype the device does not support.
  Outputs execute(const ir::Op& op, std::span<const Operand> inputs,
                  std::span<const ir::TensorMeta> outputs) override {
    self().context_->check_usable();
    for (const Operand& input : inputs)
      check_dtype(ir::name(op), input.meta.dtype);
    for (const ir::TensorMeta& output : outputs)
      check_dtype(ir::name(op), output.dtype);
    if (std::optional<Outputs> result = run_on_device(op, inputs, outputs))
      return std::move(*result);
    // A result the device cannot hold fails here, as the device's allocation (an ExecutionError
    // naming the bytes and what the pools hold), before the host computes it; the slices go back
    // to the pools, where the results' uploads find them.
    for (const ir::TensorMeta& output : outputs)
      allocate(output);
    HostRuns::record(ir::name(op));
    return ndarray::run_on_host(*this, op, inputs, outputs);
  }

  /// Yes where the row kernels take op (shader/row_passes.h).
  bool runs_fused_rows(const ir::Op& op, std::span<const ir::TensorMeta> inputs) const override {
    return row_passes_take(op, inputs, self().rows_.limits());
  }

  /// Every supported dtype (a program the emitter does not write for this device runs op by op),
  /// the program kernels' rank.
  backend::FusionSupport fusion_support() const override {
    backend::FusionSupport support;
    for (DType dtype : kAllDTypes)
      if (supports_dtype(dtype)) support.dtypes.push_back(dtype);
    support.max_rank = codegen::kProgramMaxRank;
    support.runs_programs = true;
    return support;
  }

  /// The program's kernel, or op by op where the emitter refuses it.
  Outputs execute_fused(const ir::Program& program, std::span<const Operand> inputs,
                        std::span<const Scalar> constants, const Shape& shape) override {
    self().context_->check_usable();
    if (!runs_program(program, inputs, shape))
      return fusion::run_op_by_op(*this, program, inputs, constants, shape);
    return run_program(program, inputs, constants, shape);
  }

  /// Yes where the attention kernels take the case in both directions (attention_passes_take).
  bool runs_fused_attention(const ir::Attention& op,
                            std::span<const ir::TensorMeta> inputs) const override {
    return attention_passes_take(op, inputs, self().attention_.limits());
  }

  backend::BufferPtr write(const TensorData& data) override {
    self().context_->check_usable();
    check_dtype("write", data.dtype());
    auto buffer = allocate(data.bytes().size());
    self().stream_->upload(data.bytes(), buffer->range());
    buffer->set_index_range(detail::index_range_of(data));
    return buffer;
  }

  TensorData read(const Operand& operand) override {
    self().context_->check_usable();
    // Not zeroed first: the copy writes every byte.
    TensorData data = TensorData::uninitialized(operand.meta.shape, operand.meta.dtype);
    const std::span<std::byte> bytes = data.bytes_mut();
    Range from = range_of(operand.buffer);
    from.bytes = bytes.size();
    self().stream_->download(from, bytes);
    return data;
  }

  void sync() override { self().stream_->sync(); }
  void flush() override { self().stream_->flush(); }

  std::optional<std::vector<SlicedPoolReport>> memory_pool_report() const override {
    return self().memory_->report();
  }
  std::optional<MemoryPoolUsage> memory_pool_usage() const override {
    return self().memory_->usage();
  }
  void begin_persistent_allocations() override { self().memory_->set_persistent(true); }
  void end_persistent_allocations() noexcept override { self().memory_->set_persistent(false); }

 protected:
  /// The kernels' scratch (reduce's partials, sort's pairs, the scan's carries): scratch(bytes,
  /// &range) gives a buffer of bytes (range: where it lies), held while the returned pointer lives.
  auto scratch() {
    return [this](uint64_t bytes, Range* range) {
      auto buffer = allocate(static_cast<std::size_t>(bytes));
      *range = buffer->range();
      return std::shared_ptr<const void>(std::move(buffer));
    };
  }
  /// Waits for the queue at the backend's end; a poisoned device has nothing left to wait for.
  void finish() noexcept {
    try {
      self().stream_->sync();
    } catch (...) {
      // A poisoned device: nothing of its work is left to wait for.
    }
  }

  /// A new buffer of bytes in the pools.
  std::shared_ptr<Buffer> allocate(std::size_t bytes) {
    return std::make_shared<Buffer>(self().memory_, *self().pages_, bytes);
  }
  std::shared_ptr<Buffer> allocate(const ir::TensorMeta& meta) {
    return allocate(static_cast<std::size_t>(bytes_of(meta)));
  }
  /// A new buffer for each of outputs, their slices appended to ranges.
  Outputs allocate_all(std::span<const ir::TensorMeta> outputs, std::vector<Range>& ranges) {
    Outputs buffers;
    for (const ir::TensorMeta& output : outputs) {
      auto buffer = allocate(output);
      ranges.push_back(buffer->range());
      buffers.push_back(std::move(buffer));
    }
    return buffers;
  }
  static const Buffer& buffer_of(const backend::BufferPtr& buffer) {
    return static_cast<const Buffer&>(*buffer);
  }
  /// The range a kernel reads buffer's bytes at; a deferred transpose's bytes written first.
  const Range& range_of(const backend::BufferPtr& buffer) {
    const Buffer& held = buffer_of(buffer);
    held.write_deferred([&](const typename Buffer::Deferred& deferred) {
      write_transpose(deferred, held.range());
    });
    return held.range();
  }
  /// A product's operand: the range its kernel reads, and whether that is the operand's
  /// transpose (its buffer a deferred transpose of a tensor, read as it is).
  std::pair<Range, bool> product_operand(const Operand& operand) {
    const std::optional<typename Buffer::Deferred> deferred = buffer_of(operand.buffer).deferred();
    if (deferred && deferred->meta.shape == operand.meta.shape)
      return {range_of(deferred->source), true};
    return {range_of(operand.buffer), false};
  }

 private:
  Derived& self() { return static_cast<Derived&>(*this); }
  const Derived& self() const { return static_cast<const Derived&>(*this); }

  void check_dtype(const std::string& what, DType dtype) const {
    if (supports_dtype(dtype)) return;
    throw InvalidArgument(
        "[" + what + "] device " + self().context_->name() + " does not support dtype " +
        std::string(dtype_name(dtype)) +
        " (Device::supports_dtype says which it does: " + std::string(Derived::kDocs) + ")");
  }

  /// ir::lone_op_program(op, inputs, output), kept under ir::lone_op_key: its compiled form (the
  /// emitter's verdict and the kernel) is built once per form of the op, where building and
  /// hashing the kernel's source at every call was most of a lone op's host time. The kernels
  /// read the inputs' strides from their parameters, so the program kept serves every shape.
  const ir::Program& lone_program(const ir::Op& op, std::span<const ir::TensorMeta> inputs,
                                  const ir::TensorMeta& output) {
    std::string key = ir::lone_op_key(op, inputs, output.dtype);
    const std::lock_guard lock(lone_programs_mutex_);
    auto [kept, added] = lone_programs_.try_emplace(std::move(key));
    if (added)
      kept->second = std::make_unique<const ir::Program>(ir::lone_op_program(op, inputs, output));
    return *kept->second;
  }

  /// op run by a kernel of the device; nullopt sends it to the host.
  std::optional<Outputs> run_on_device(const ir::Op& op, std::span<const Operand> inputs,
                                       std::span<const ir::TensorMeta> outputs) {
    return std::visit([&](const auto& o) { return run(o, op, inputs, outputs); }, op);
  }

  /// Whether the program kernels run program over shape on inputs.
  bool runs_program(const ir::Program& program, std::span<const Operand> inputs,
                    const Shape& shape) {
    uint64_t largest = 0;
    for (const Operand& input : inputs)
      largest = std::max(largest, bytes_of(input.meta));
    for (const uint32_t result : program.outputs)
      largest = std::max(largest, bytes_of({shape, program.instructions[result].dtype}));
    return self().programs_.runs(program, static_cast<uint64_t>(shape.num_elements()), largest);
  }

  /// program over shape on inputs (runs_program holds): its outputs.
  Outputs run_program(const ir::Program& program, std::span<const Operand> inputs,
                      std::span<const Scalar> constants, const Shape& shape) {
    Outputs outputs;
    std::vector<Range> output_ranges;
    for (const uint32_t result : program.outputs) {
      auto buffer = allocate({shape, program.instructions[result].dtype});
      output_ranges.push_back(buffer->range());
      outputs.push_back(std::move(buffer));
    }
    std::vector<Range> input_ranges;
    std::vector<Shape> input_shapes;
    for (const Operand& input : inputs) {
      input_ranges.push_back(range_of(input.buffer));
      input_shapes.push_back(input.meta.shape);
    }
    self().programs_.run(program, input_ranges, codegen::merged_dims(shape, input_shapes),
                         output_ranges, constants, static_cast<uint64_t>(shape.num_elements()));
    return outputs;
  }

  template <typename Op>
  requires(std::is_same_v<Op, ir::Unary> || std::is_same_v<Op, ir::Binary> ||
           std::is_same_v<Op, ir::BinaryScalar> || std::is_same_v<Op, ir::Compare> ||
           std::is_same_v<Op, ir::CompareScalar> || std::is_same_v<Op, ir::Where> ||
           std::is_same_v<Op, ir::MaskFill> || std::is_same_v<Op, ir::Cast> ||
           std::is_same_v<Op, ir::Activation>)
      std::optional<Outputs> run(const Op& /*typed*/, const ir::Op& op,
                                 std::span<const Operand> inputs,
                                 std::span<const ir::TensorMeta> outputs) {
    // A lone op runs as a program of one instruction (which also broadcasts).
    std::vector<ir::TensorMeta> metas;
    for (const Operand& input : inputs)
      metas.push_back(input.meta);
    const ir::Program& program = lone_program(op, metas, outputs[0]);
    if (!runs_program(program, inputs, outputs[0].shape)) return std::nullopt;
    std::vector<Scalar> constants;
    if (const std::optional<Scalar> scalar = ir::scalar_of(op)) constants.push_back(*scalar);
    return run_program(program, inputs, constants, outputs[0].shape);
  }

  std::optional<Outputs> run(const ir::Reshape& /*reshape*/, const ir::Op& /*op*/,
                             std::span<const Operand> inputs,
                             std::span<const ir::TensorMeta> /*outputs*/) {
    // Same bytes, row-major either way: buffers are never written once made.
    return Outputs{inputs[0].buffer};
  }

  std::optional<Outputs> run(const ir::Matmul& /*matmul*/, const ir::Op& /*op*/,
                             std::span<const Operand> inputs,
                             std::span<const ir::TensorMeta> outputs) {
    if (!self().matmul_.takes(inputs[0].meta, inputs[1].meta, outputs[0])) return std::nullopt;
    auto out = allocate(outputs[0]);
    const auto [a, a_transposed] = product_operand(inputs[0]);
    const auto [b, b_transposed] = product_operand(inputs[1]);
    self().matmul_.run({a, a_transposed}, {b, b_transposed}, out->range(), inputs[0].meta,
                       inputs[1].meta, outputs[0], scratch());
    return Outputs{out};
  }

  std::optional<Outputs> run(const ir::Reduce& reduce, const ir::Op& /*op*/,
                             std::span<const Operand> inputs,
                             std::span<const ir::TensorMeta> outputs) {
    if (!self().reduce_.takes(reduce, inputs[0].meta, outputs[0])) return std::nullopt;
    auto out = allocate(outputs[0]);
    self().reduce_.run(reduce, range_of(inputs[0].buffer), inputs[0].meta, out->range(),
                       outputs[0]);
    return Outputs{out};
  }

  std::optional<Outputs> run(const ir::Sort& sort, const ir::Op& /*op*/,
                             std::span<const Operand> inputs,
                             std::span<const ir::TensorMeta> outputs) {
    if (!self().sort_.takes(sort, inputs[0].meta)) return std::nullopt;
    auto values = allocate(outputs[0]);
    auto positions = allocate(outputs[1]);
    self().sort_.run(sort, range_of(inputs[0].buffer), inputs[0].meta, values->range(),
                     positions->range());
    return Outputs{values, positions};
  }

  std::optional<Outputs> run(const ir::Random& random, const ir::Op& /*op*/,
                             std::span<const Operand> /*inputs*/,
                             std::span<const ir::TensorMeta> outputs) {
    if (!self().random_.takes(random)) return std::nullopt;
    auto out = allocate(outputs[0]);
    self().random_.run(random, out->range());
    return Outputs{out};
  }

  template <typename Op>
  requires(std::is_same_v<Op, ir::Permute> || std::is_same_v<Op, ir::Flip> ||
           std::is_same_v<Op, ir::Expand> || std::is_same_v<Op, ir::Slice>)
      std::optional<Outputs> run(const Op& typed, const ir::Op& op, std::span<const Operand> inputs,
                                 std::span<const ir::TensorMeta> outputs) {
    const std::optional<codegen::LayoutView> view =
        codegen::layout_view(op, inputs[0].meta.shape, outputs[0].shape);
    const ir::Program* program = view ? view_program(inputs[0].meta, outputs[0]) : nullptr;
    if (program == nullptr) return std::nullopt;
    auto out = allocate(outputs[0]);
    if constexpr (std::is_same_v<Op, ir::Permute>) {
      // A transpose a product reads as it is (the matmul kernels read either layout): its copy
      // waits until anything else needs the bytes (range_of), most often forever.
      if (typed.swaps_last_two() && self().matmul_.reads_transposed(inputs[0].meta.dtype)) {
        out->defer({inputs[0].buffer, inputs[0].meta, outputs[0]});
        return Outputs{out};
      }
    }
    // A rearrangement of the same elements (an expand, a permute, a slice): a superset's range.
    out->set_index_range(buffer_of(inputs[0].buffer).index_range());
    record_view(*program, range_of(inputs[0].buffer), *view, outputs[0], out->range());
    return Outputs{out};
  }

  /// The program kernel that copies a view of a tensor of input into one of output (input's
  /// dtype), or nullptr where the program kernels do not take it (a dtype the device's kernels
  /// cannot hold, a tensor past one binding's range).
  const ir::Program* view_program(const ir::TensorMeta& input, const ir::TensorMeta& output) {
    const ir::TensorMeta as_output{output.shape, input.dtype};
    const ir::Program& program = lone_program(ir::Cast{input.dtype}, {&as_output, 1}, output);
    const auto n = static_cast<uint64_t>(output.shape.num_elements());
    return self().programs_.runs(program, n, std::max(bytes_of(input), bytes_of(output))) ? &program
                                                                                          : nullptr;
  }
  /// Records program (view_program's) copying from through view into to (of output).
  void record_view(const ir::Program& program, const Range& from, const codegen::LayoutView& view,
                   const ir::TensorMeta& output, const Range& to) {
    const codegen::MergedDims dims =
        codegen::merge_dims(output.shape.dims(), {view.strides}, std::vector<int64_t>{view.offset});
    self().programs_.run(program, {&from, 1}, dims, {&to, 1}, {},
                         static_cast<uint64_t>(output.shape.num_elements()));
  }
  /// Records the copy of a deferred transpose into to (its buffer's range).
  void write_transpose(const typename Buffer::Deferred& deferred, const Range& to) {
    std::vector<int64_t> axes(deferred.meta.shape.rank());
    std::iota(axes.begin(), axes.end(), int64_t{0});
    std::swap(axes[axes.size() - 2], axes.back());
    const ir::Op permute = ir::Permute{std::move(axes)};
    record_view(*view_program(deferred.source_meta, deferred.meta), range_of(deferred.source),
                *codegen::layout_view(permute, deferred.source_meta.shape, deferred.meta.shape),
                deferred.meta, to);
  }

  std::optional<Outputs> run(const ir::Softmax& softmax, const ir::Op& /*op*/,
                             std::span<const Operand> inputs,
                             std::span<const ir::TensorMeta> outputs) {
    if (!self().softmax_.takes(softmax, inputs[0].meta)) return std::nullopt;
    auto out = allocate(outputs[0]);
    self().softmax_.run(softmax, range_of(inputs[0].buffer), inputs[0].meta, out->range());
    return Outputs{out};
  }

  /// Convolution and pooling by the backend's conv_pool_ kernels (shader/conv_pool_kernels.h),
  /// where they take the case.
  template <typename Op>
  requires(std::is_same_v<Op, ir::Conv> || std::is_same_v<Op, ir::ConvWeightGrad> ||
           std::is_same_v<Op, ir::Pool> || std::is_same_v<Op, ir::AdaptivePool> ||
           std::is_same_v<Op, ir::AvgPoolGrad> || std::is_same_v<Op, ir::AdaptiveAvgPoolGrad>)
      std::optional<Outputs> run(const Op& typed, const ir::Op& /*op*/,
                                 std::span<const Operand> inputs,
                                 std::span<const ir::TensorMeta> outputs) {
    std::vector<ir::TensorMeta> metas;
    std::vector<Range> input_ranges;
    for (const Operand& input : inputs) {
      metas.push_back(input.meta);
      input_ranges.push_back(range_of(input.buffer));
    }
    if (!self().conv_pool_.takes(typed, metas, outputs)) return std::nullopt;
    std::vector<Range> output_ranges;
    Outputs results = allocate_all(outputs, output_ranges);
    self().conv_pool_.run(typed, input_ranges, metas, output_ranges, outputs);
    return results;
  }

  /// Interpolation and its gradient by the backend's interpolate_ kernels (interpolate_passes.h),
  /// where they take the case.
  template <typename Op>
  requires(std::is_same_v<Op, ir::Interpolate> || std::is_same_v<Op, ir::InterpolateGrad>)
      std::optional<Outputs> run(const Op& typed, const ir::Op& /*op*/,
                                 std::span<const Operand> inputs,
                                 std::span<const ir::TensorMeta> outputs) {
    if (!self().interpolate_.takes(typed, inputs[0].meta, outputs[0])) return std::nullopt;
    auto out = allocate(outputs[0]);
    self().interpolate_.run(typed, inputs[0].meta, outputs[0], range_of(inputs[0].buffer),
                            out->range());
    return Outputs{out};
  }

  // ---- attention: the attention kernels (backends/shader/attention_passes.h) ----

  /// The forward where the kernels take it: the result and the rows' lse.
  std::optional<Outputs> run(const ir::Attention& attention, const ir::Op& /*op*/,
                             std::span<const Operand> inputs,
                             std::span<const ir::TensorMeta> outputs) {
    const std::vector<ir::TensorMeta> metas = metas_of(inputs);
    if (!attention_passes_take(attention, metas, self().attention_.limits())) return std::nullopt;
    const AttentionGeometry geometry = AttentionGeometry::of(attention, metas);
    auto out = allocate(outputs[0]);
    auto lse = allocate(outputs[1]);
    record_attention_forward(geometry, range_of(inputs[0].buffer), range_of(inputs[1].buffer),
                             range_of(inputs[2].buffer), mask_range(inputs, inputs.size() == 4),
                             out->range(), lse->range(), attention_dispatch(geometry));
    return Outputs{out, lse};
  }

  /// The backward (inputs: q, k, v[, mask], out, lse, grad_out) where the kernels take its
  /// forward: the gradients of q, k and v.
  std::optional<Outputs> run(const ir::AttentionGrad& grad, const ir::Op& /*op*/,
                             std::span<const Operand> inputs,
                             std::span<const ir::TensorMeta> outputs) {
    const bool has_mask = inputs.size() == 7;
    const std::size_t at = has_mask ? 4 : 3;  // where the forward's outputs begin
    const std::vector<ir::TensorMeta> metas = metas_of(inputs.first(at));
    if (!attention_passes_take(grad.attention, metas, self().attention_.limits()))
      return std::nullopt;
    const AttentionGeometry geometry = AttentionGeometry::of(grad.attention, metas);
    auto stats =
        allocate(static_cast<std::size_t>(2 * geometry.batches * geometry.l) * sizeof(float));
    auto dq = allocate(outputs[0]);
    auto dk = allocate(outputs[1]);
    auto dv = allocate(outputs[2]);
    const AttentionBackwardInputs<Range> forward{
        range_of(inputs[0].buffer),     range_of(inputs[1].buffer),
        range_of(inputs[2].buffer),     mask_range(inputs, has_mask),
        range_of(inputs[at].buffer),    range_of(inputs[at + 1].buffer),
        range_of(inputs[at + 2].buffer)};
    record_attention_backward(geometry, forward, stats->range(), dq->range(), dk->range(),
                              dv->range(), attention_dispatch(geometry));
    return Outputs{dq, dk, dv};
  }

  /// The metadata of inputs.
  static std::vector<ir::TensorMeta> metas_of(std::span<const Operand> inputs) {
    std::vector<ir::TensorMeta> metas;
    for (const Operand& input : inputs)
      metas.push_back(input.meta);
    return metas;
  }
  /// The mask's range (inputs[3]), its bytes rounded up to whole words (the kernels read a Bool
  /// mask's bytes from words); q's where there is none (bound, never read).
  Range mask_range(std::span<const Operand> inputs, bool has_mask) {
    if (!has_mask) return range_of(inputs[0].buffer);
    Range mask = range_of(inputs[3].buffer);
    mask.bytes = (mask.bytes + 3) / 4 * 4;
    return mask;
  }
  /// record_attention_forward's and record_attention_backward's dispatch on geometry's case.
  auto attention_dispatch(const AttentionGeometry& geometry) {
    return [this, &geometry](AttentionPass pass, std::span<const Range> tensors, uint32_t groups) {
      self().attention_.dispatch(pass, geometry, tensors, groups);
    };
  }

  /// The fused row ops by the row kernels (shader/row_passes.h), where they take the case. A
  /// cross-entropy op waits for its kernel's word of bad targets: where one is set, the host runs
  /// the op, for ndarray's InvalidArgument naming the target.
  template <typename Op>
  requires ir::FusedRowOp<Op> std::optional<Outputs> run(const Op& /*typed*/, const ir::Op& op,
                                                         std::span<const Operand> inputs,
                                                         std::span<const ir::TensorMeta> outputs) {
    auto& kernels = self().rows_;
    std::vector<ir::TensorMeta> metas;
    std::vector<Range> input_ranges;
    for (const Operand& input : inputs) {
      metas.push_back(input.meta);
      input_ranges.push_back(range_of(input.buffer));
    }
    if (!row_passes_take(op, metas, kernels.limits())) return std::nullopt;
    std::vector<Range> output_ranges;
    Outputs results = allocate_all(outputs, output_ranges);
    constexpr bool kChecksTargets =
        std::is_same_v<Op, ir::CrossEntropy> || std::is_same_v<Op, ir::CrossEntropyGrad>;
    std::shared_ptr<Buffer> flag;
    Range bad_target = output_ranges[0];  // a stand-in for the kernels that check no target
    if (kChecksTargets) {
      flag = allocate(sizeof(uint32_t));
      bad_target = flag->range();
      bad_target.bytes = sizeof(uint32_t);
      self().stream_->fill_zero(bad_target);
    }
    const auto dispatch = [&](RowKernel kernel, std::span<const std::byte> words,
                              std::span<const Range> tensors,
                              uint32_t groups) { kernels.run(kernel, words, tensors, groups); };
    RowPasses<Range, decltype(dispatch)>(input_ranges, metas, output_ranges, bad_target,
                                         kernels.limits().max_groups, dispatch)
        .record(op);
    if (!kChecksTargets) return results;
    uint32_t bad = 0;
    self().stream_->download(bad_target, std::as_writable_bytes(std::span(&bad, 1)));
    if (bad != 0) return std::nullopt;
    return results;
  }

  // ---- data movement and indexing: the index-copy kernels (backends/shader/index_copy.h) ----

  /// dispatch recorded on tensors by the backend's index-copy kernel; nothing for no elements.
  void record(const IndexCopyDispatch& dispatch, std::initializer_list<Range> tensors) {
    if (dispatch.elements == 0) return;
    index_copy_dispatches().fetch_add(1, std::memory_order_relaxed);
    self().index_copy_.run(dispatch, std::span<const Range>(tensors.begin(), tensors.size()));
  }
  /// Whether a kernel over elements (of a shape of rank), turns loop turns each, on tensors fits
  /// the device (index_copy_fits), its dtype moved as bits.
  bool copies(DType dtype, std::size_t rank, uint64_t elements, uint64_t turns,
              std::initializer_list<ir::TensorMeta> tensors) const {
    return moves_dtype(dtype) && rank <= kIndexCopyMaxRank &&
           index_copy_fits(elements, turns, tensors, self().index_copy_.limits());
  }

  std::optional<Outputs> run(const ir::Full& full, const ir::Op& /*op*/,
                             std::span<const Operand> /*inputs*/,
                             std::span<const ir::TensorMeta> outputs) {
    const auto n = static_cast<uint64_t>(outputs[0].shape.num_elements());
    if (!copies(full.dtype, 1, n, 1, {outputs[0]})) return std::nullopt;
    // The value in its dtype (ndarray's conversion) travels in the parameter words.
    auto out = allocate(outputs[0]);
    record(fill_dispatch(full, n), {out->range()});
    return Outputs{out};
  }

  std::optional<Outputs> run(const ir::Arange& arange, const ir::Op& /*op*/,
                             std::span<const Operand> /*inputs*/,
                             std::span<const ir::TensorMeta> outputs) {
    const auto n = static_cast<uint64_t>(outputs[0].shape.num_elements());
    const std::optional<IndexCopyDispatch> dispatch = arange_dispatch(arange, n);
    if (!dispatch || !copies(arange.dtype, 1, n, 1, {outputs[0]})) return std::nullopt;
    auto out = allocate(outputs[0]);
    out->set_index_range(
        detail::arange_range(arange.dtype, arange.start, arange.step, static_cast<int64_t>(n)));
    record(*dispatch, {out->range()});
    return Outputs{out};
  }

  std::optional<Outputs> run(const ir::Cat& cat, const ir::Op& /*op*/,
                             std::span<const Operand> inputs,
                             std::span<const ir::TensorMeta> outputs) {
    const ir::TensorMeta& meta = outputs[0];
    for (const Operand& part : inputs)
      if (!copies(meta.dtype, meta.shape.rank(),
                  static_cast<uint64_t>(part.meta.shape.num_elements()), meta.shape.rank() + 1,
                  {part.meta, meta}))
        return std::nullopt;
    auto out = allocate(meta);
    int64_t position = 0;  // where along dim the next part starts
    for (const Operand& part : inputs) {
      record(cat_copy(part.meta.shape, meta.shape, cat.dim, position).dispatch(meta.dtype),
             {range_of(part.buffer), out->range()});
      position += part.meta.shape[static_cast<std::size_t>(cat.dim)];
    }
    return Outputs{out};
  }

  std::optional<Outputs> run(const ir::SliceAssign& assign, const ir::Op& /*op*/,
                             std::span<const Operand> inputs,
                             std::span<const ir::TensorMeta> outputs) {
    const ir::TensorMeta& meta = outputs[0];
    if (!copies(meta.dtype, meta.shape.rank(), static_cast<uint64_t>(meta.shape.num_elements()),
                meta.shape.rank() + 1, {meta}))
      return std::nullopt;
    auto out = allocate(meta);
    record(contiguous_copy(meta.shape).dispatch(meta.dtype),
           {range_of(inputs[0].buffer), out->range()});
    record(slice_assign_copy(inputs[1].meta.shape, meta.shape, assign.ranges).dispatch(meta.dtype),
           {range_of(inputs[1].buffer), out->range()});
    return Outputs{out};
  }

  template <typename Op>
  requires(std::is_same_v<Op, ir::Select> || std::is_same_v<Op, ir::Gather>)
      std::optional<Outputs> run(const Op& typed, const ir::Op& op, std::span<const Operand> inputs,
                                 std::span<const ir::TensorMeta> outputs) {
    const ir::TensorMeta& x = inputs[0].meta;
    if (!takes_indexed(op, inputs, typed.dim,
                       static_cast<uint64_t>(outputs[0].shape.num_elements()), x.shape.rank() + 2,
                       outputs[0]))
      return std::nullopt;
    auto out = allocate(outputs[0]);
    const CopyWalk walk = indexed_copy(x.shape, outputs[0].shape, typed.dim, inputs[1].meta.dtype,
                                       std::is_same_v<Op, ir::Select>);
    record(walk.dispatch(x.dtype),
           {range_of(inputs[0].buffer), out->range(), range_of(inputs[1].buffer)});
    return Outputs{out};
  }

  template <typename Op>
  requires(std::is_same_v<Op, ir::SelectAssign> || std::is_same_v<Op, ir::Scatter>)
      std::optional<Outputs> run(const Op& typed, const ir::Op& op, std::span<const Operand> inputs,
                                 std::span<const ir::TensorMeta> outputs) {
    const ir::TensorMeta& x = inputs[0].meta;
    const ir::TensorMeta& indices = inputs[1].meta;
    const ir::TensorMeta& values = inputs[2].meta;
    const std::optional<Combine> combine = combine_of(typed.update, x.dtype);
    const auto along = static_cast<uint64_t>(values.shape[static_cast<std::size_t>(typed.dim)]);
    const auto x_elements = static_cast<uint64_t>(x.shape.num_elements());
    if (!combine ||
        update_turns(values.shape, typed.dim) > self().index_copy_.limits().max_dispatch_turns ||
        !copies(x.dtype, x.shape.rank(), x_elements, x.shape.rank(), {x}) ||
        !takes_indexed(op, inputs, typed.dim, static_cast<uint64_t>(values.shape.num_elements()),
                       values.shape.rank() + along + 1, values))
      return std::nullopt;
    auto out = allocate(outputs[0]);
    const Range from = range_of(inputs[0].buffer);
    record(contiguous_copy(x.shape).dispatch(x.dtype), {from, out->range()});
    // Nothing to update (and no values to bind): x as it is.
    if (values.shape.num_elements() == 0) return Outputs{out};
    record(update_dispatch(x.shape, values.shape, typed.dim, x.dtype, indices.dtype, *combine,
                           std::is_same_v<Op, ir::SelectAssign>),
           {from, range_of(inputs[1].buffer), range_of(inputs[2].buffer), out->range()});
    return Outputs{out};
  }

  std::optional<Outputs> run(const ir::Cumulative& cumulative, const ir::Op& /*op*/,
                             std::span<const Operand> inputs,
                             std::span<const ir::TensorMeta> outputs) {
    const ir::TensorMeta& x = inputs[0].meta;
    const ScanDispatch dispatch = ScanDispatch::of(cumulative, x);
    auto& kernel = self().cumulative_;
    if (!kernel.takes(cumulative.op, x.dtype) || !dispatch.fits(x, kernel.limits()))
      return std::nullopt;
    auto out = allocate(outputs[0]);
    if (dispatch.lanes * dispatch.n == 0) return Outputs{out};
    index_copy_dispatches().fetch_add(1, std::memory_order_relaxed);
    record_scan(dispatch, range_of(inputs[0].buffer), out->range(), scratch(),
                [&](ScanPass pass, std::span<const Range> tensors) {
                  kernel.run(dispatch, pass, tensors);
                });
    return Outputs{out};
  }

  /// Whether the kernel of an indexed op (inputs: x, indices, ...) takes it: indices the kernels
  /// read, elements with turns loop turns each, x, indices and other (a tensor) within a
  /// binding. Then checks the indices against x's dim (ndarray's error for one out of range).
  bool takes_indexed(const ir::Op& op, std::span<const Operand> inputs, int64_t dim,
                     uint64_t elements, uint64_t turns, const ir::TensorMeta& other) {
    const ir::TensorMeta& x = inputs[0].meta;
    const ir::TensorMeta& indices = inputs[1].meta;
    if (!reads_index(indices.dtype) ||
        !copies(x.dtype, x.shape.rank(), elements, turns, {x, indices, other}))
      return false;
    check_indices(op, inputs[1], dim, x.shape[static_cast<std::size_t>(dim)]);
    return true;
  }

  /// Throws ndarray's InvalidArgument when an element of indices lies outside [0, size) of dim:
  /// a kernel finds the first, and waits for it (an index error belongs to its op's call); the
  /// message is ndarray's own, from the indices read back. No kernel and no wait where the host
  /// knows the indices' range (an upload's, an arange's) and it lies inside.
  void check_indices(const ir::Op& op, const Operand& indices, int64_t dim, int64_t size) {
    const auto n = static_cast<uint64_t>(indices.meta.shape.num_elements());
    if (n == 0) return;
    if (const auto& known = buffer_of(indices.buffer).index_range(); known && known->within(size))
      return;
    auto flag = allocate(sizeof(uint32_t));
    Range word = flag->range();
    word.bytes = sizeof(uint32_t);
    self().stream_->fill_zero(word);
    record(check_dispatch(n, size, indices.meta.dtype), {range_of(indices.buffer), word});
    uint32_t first = 0;  // n - the first bad position, 0 for none
    self().stream_->download(word, std::as_writable_bytes(std::span(&first, 1)));
    if (first != 0) ndarray::checked_indices(op, read(indices), dim, size);
  }

  std::unordered_map<std::string, std::unique_ptr<const ir::Program>> lone_programs_;
  std::mutex lone_programs_mutex_;  // guards lone_programs_
};

}  // namespace ember::shader
