#include "backends/vulkan/vulkan_backend.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "backends/ndarray/run_on_host.h"
#include "backends/pools/memory_manager.h"
#include "backends/vulkan/command_stream.h"
#include "backends/vulkan/device_pages.h"
#include "backends/vulkan/kernel_cache.h"
#include "backends/vulkan/matmul_kernel.h"
#include "backends/vulkan/program_kernels.h"
#include "backends/vulkan/reduce_kernel.h"
#include "codegen/kernel_dims.h"
#include "codegen/layout_views.h"
#include "ember/error.h"
#include "fusion/fusion_backend.h"
#include "fusion/op_by_op.h"
#include "ir/program.h"

namespace ember::vulkan {
namespace {

using backend::BufferPtr;
using backend::Operand;
using backend::Outputs;

/// A tensor's bytes in the device's pools.
class DeviceBuffer final : public backend::Buffer {
 public:
  DeviceBuffer(std::shared_ptr<pools::MemoryManager> memory, const DevicePages& pages,
               std::size_t bytes)
      : memory_(std::move(memory)), bytes_(bytes), block_(memory_->allocate(bytes)) {
    try {
      range_ = pages.locate(block_, bytes);
    } catch (...) {
      memory_->deallocate(block_, bytes_);
      throw;
    }
  }
  ~DeviceBuffer() override { memory_->deallocate(block_, bytes_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  const BufferRange& range() const { return range_; }

 private:
  std::shared_ptr<pools::MemoryManager> memory_;
  std::size_t bytes_;
  std::byte* block_;
  BufferRange range_;
};

const BufferRange& range_of(const BufferPtr& buffer) {
  return static_cast<const DeviceBuffer&>(*buffer).range();
}

std::size_t bytes_of(const ir::TensorMeta& meta) {
  return static_cast<std::size_t>(meta.shape.num_elements()) * dtype_size(meta.dtype);
}

class VulkanBackend final : public backend::Backend {
 public:
  VulkanBackend(const PhysicalDevice& physical, const std::string& name)
      : context_(std::make_shared<Context>(physical, name)),
        stream_(std::make_shared<CommandStream>(context_)),
        // A page goes back only once no submitted batch can still use it.
        pages_(
            std::make_shared<DevicePages>(context_, false, [stream = stream_] { stream->sync(); })),
        memory_(std::make_shared<pools::MemoryManager>(pages_, name)),
        kernels_(context_),
        programs_(context_->features(), kernels_, *stream_),
        matmul_(context_->features(), kernels_, *stream_),
        reduce_(context_->features(), kernels_, *stream_,
                [this](uint64_t bytes, BufferRange* range) {
                  auto buffer = allocate(static_cast<std::size_t>(bytes));
                  *range = buffer->range();
                  return std::shared_ptr<const void>(std::move(buffer));
                }) {}

  ~VulkanBackend() override {
    try {
      stream_->sync();
    } catch (...) {
      // A poisoned device: nothing of its work is left to wait for.
    }
  }
  VulkanBackend(const VulkanBackend&) = delete;
  VulkanBackend& operator=(const VulkanBackend&) = delete;

  std::string name() const override { return "vulkan"; }
  std::string description() const override { return describe(context_->physical()); }
  bool supports_dtype(DType dtype) const override {
    return computes_in(context_->features(), dtype);
  }

  Outputs execute(const ir::Op& op, std::span<const Operand> inputs,
                  std::span<const ir::TensorMeta> outputs) override {
    context_->check_usable();
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
    return ndarray::run_on_host(*this, op, inputs, outputs);
  }

  backend::FusionSupport fusion_support() const override {
    backend::FusionSupport support;
    // Every supported dtype: a program the emitter does not write for this device runs op by op.
    for (DType dtype : kAllDTypes)
      if (supports_dtype(dtype)) support.dtypes.push_back(dtype);
    support.max_rank = codegen::kProgramMaxRank;
    support.runs_programs = true;
    return support;
  }

  Outputs execute_fused(const ir::Program& program, std::span<const Operand> inputs,
                        std::span<const Scalar> constants, const Shape& shape) override {
    context_->check_usable();
    if (!runs_program(program, inputs, shape))
      return fusion::run_op_by_op(*this, program, inputs, constants, shape);
    return run_program(program, inputs, constants, shape);
  }

  BufferPtr write(const TensorData& data) override {
    context_->check_usable();
    check_dtype("write", data.dtype());
    auto buffer = allocate(data.bytes().size());
    stream_->upload(data.bytes(), buffer->range());
    return buffer;
  }

  TensorData read(const Operand& operand) override {
    context_->check_usable();
    // Not zeroed first: the copy writes every byte.
    TensorData data = TensorData::uninitialized(operand.meta.shape, operand.meta.dtype);
    const std::span<std::byte> bytes = data.bytes_mut();
    BufferRange from = range_of(operand.buffer);
    from.bytes = bytes.size();
    stream_->download(from, bytes);
    return data;
  }

  void sync() override { stream_->sync(); }
  void flush() override { stream_->flush(); }
  std::shared_ptr<backend::DeviceTimestamp> record_timestamp() override {
    context_->check_usable();
    return stream_->timestamp();
  }

  std::optional<std::vector<SlicedPoolReport>> memory_pool_report() const override {
    return memory_->report();
  }
  std::optional<MemoryPoolUsage> memory_pool_usage() const override { return memory_->usage(); }
  void memory_cleanup() override {
    memory_->cleanup();
    stream_->staging().cleanup();
  }
  void begin_persistent_allocations() override { memory_->set_persistent(true); }
  void end_persistent_allocations() noexcept override { memory_->set_persistent(false); }

 private:
  static std::string describe(const PhysicalDevice& physical) {
    const Features& f = physical.features;
    std::string text = physical.name + " (Vulkan " +
                       std::to_string(VK_API_VERSION_MAJOR(physical.api_version)) + "." +
                       std::to_string(VK_API_VERSION_MINOR(physical.api_version)) + "; dtypes:";
    for (DType dtype : kAllDTypes)
      if (computes_in(f, dtype)) text += " " + std::string(dtype_name(dtype));
    text += f.timestamp_period > 0 ? "; timestamps)" : "; no timestamps)";
    return text;
  }

  void check_dtype(const std::string& what, DType dtype) const {
    if (supports_dtype(dtype)) return;
    throw InvalidArgument("[" + what + "] device " + context_->name() + " does not support dtype " +
                          std::string(dtype_name(dtype)) +
                          " (Device::supports_dtype says which it does: docs/backends/vulkan.md)");
  }

  std::shared_ptr<DeviceBuffer> allocate(std::size_t bytes) {
    return std::make_shared<DeviceBuffer>(memory_, *pages_, bytes);
  }
  std::shared_ptr<DeviceBuffer> allocate(const ir::TensorMeta& meta) {
    return allocate(bytes_of(meta));
  }

  // ---- the ops ------------------------------------------------------------------------------
  // One overload per op struct: nullopt sends the op to the host (ndarray's kernels).

  /// op run by a kernel of the device; nullopt sends it to the host.
  std::optional<Outputs> run_on_device(const ir::Op& op, std::span<const Operand> inputs,
                                       std::span<const ir::TensorMeta> outputs) {
    return std::visit([&](const auto& o) { return run(o, op, inputs, outputs); }, op);
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
    const ir::Program program = ir::lone_op_program(op, metas, outputs[0]);
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
    if (!matmul_.takes(inputs[0].meta, inputs[1].meta, outputs[0])) return std::nullopt;
    auto out = allocate(outputs[0]);
    matmul_.run(range_of(inputs[0].buffer), range_of(inputs[1].buffer), out->range(),
                inputs[0].meta, inputs[1].meta, outputs[0]);
    return Outputs{out};
  }

  std::optional<Outputs> run(const ir::Reduce& reduce, const ir::Op& /*op*/,
                             std::span<const Operand> inputs,
                             std::span<const ir::TensorMeta> outputs) {
    if (!reduce_.takes(reduce, inputs[0].meta)) return std::nullopt;
    auto out = allocate(outputs[0]);
    reduce_.run(reduce, range_of(inputs[0].buffer), inputs[0].meta, out->range());
    return Outputs{out};
  }

  // ---- layout: a copy through the input's strides (the program kernel of a cast to the input's
  // own dtype, its input read as a view) ----

  template <typename Op>
  requires(std::is_same_v<Op, ir::Permute> || std::is_same_v<Op, ir::Flip> ||
           std::is_same_v<Op, ir::Expand> || std::is_same_v<Op, ir::Slice>)
      std::optional<Outputs> run(const Op& /*typed*/, const ir::Op& op,
                                 std::span<const Operand> inputs,
                                 std::span<const ir::TensorMeta> outputs) {
    const std::optional<codegen::LayoutView> view =
        codegen::layout_view(op, inputs[0].meta.shape, outputs[0].shape);
    if (!view) return std::nullopt;
    return copied_view(inputs[0], view->strides, view->offset, outputs[0]);
  }

  /// output (of input's dtype) made of input's elements read through strides (along output's
  /// dims) from offset; nullopt where the program kernels do not take it (a dtype the device's
  /// kernels cannot hold, a tensor past one descriptor's range).
  std::optional<Outputs> copied_view(const Operand& input, const std::vector<int64_t>& strides,
                                     int64_t offset, const ir::TensorMeta& output) {
    if (output.shape.rank() > codegen::kProgramMaxRank) return std::nullopt;
    const ir::TensorMeta as_output{output.shape, input.meta.dtype};
    const ir::Program program =
        ir::lone_op_program(ir::Cast{input.meta.dtype}, {&as_output, 1}, output);
    const auto n = static_cast<uint64_t>(output.shape.num_elements());
    if (!programs_.runs(program, n, std::max(bytes_of(input.meta), bytes_of(output))))
      return std::nullopt;
    auto out = allocate(output);
    const codegen::MergedDims dims =
        codegen::merge_dims(output.shape.dims(), {strides}, std::vector<int64_t>{offset});
    const BufferRange from = range_of(input.buffer);
    const BufferRange to = out->range();
    programs_.run(program, {&from, 1}, dims, {&to, 1}, {}, n);
    return Outputs{out};
  }

  /// The ops without a kernel here yet: ndarray's kernels on the host (docs/backends/vulkan.md).
  template <typename Op>
  requires(std::is_same_v<Op, ir::SliceAssign> || std::is_same_v<Op, ir::Cat> ||
           std::is_same_v<Op, ir::Select> || std::is_same_v<Op, ir::SelectAssign> ||
           std::is_same_v<Op, ir::Gather> || std::is_same_v<Op, ir::Scatter> ||
           std::is_same_v<Op, ir::Sort> || std::is_same_v<Op, ir::Cumulative> ||
           std::is_same_v<Op, ir::Full> || std::is_same_v<Op, ir::Arange> ||
           std::is_same_v<Op, ir::Random> || std::is_same_v<Op, ir::Softmax> ||
           std::is_same_v<Op, ir::Conv> || std::is_same_v<Op, ir::ConvWeightGrad> ||
           std::is_same_v<Op, ir::Pool> || std::is_same_v<Op, ir::AdaptivePool> ||
           std::is_same_v<Op, ir::AvgPoolGrad> || std::is_same_v<Op, ir::AdaptiveAvgPoolGrad> ||
           std::is_same_v<Op, ir::Interpolate> || std::is_same_v<Op, ir::InterpolateGrad> ||
           std::is_same_v<Op, ir::Attention> || std::is_same_v<Op, ir::AttentionGrad> ||
           std::is_same_v<Op, ir::LayerNorm> || std::is_same_v<Op, ir::LayerNormGrad> ||
           std::is_same_v<Op, ir::CrossEntropy> || std::is_same_v<Op, ir::CrossEntropyGrad> ||
           std::is_same_v<Op, ir::SoftmaxGrad>)
      std::optional<Outputs> run(const Op& /*typed*/, const ir::Op& /*op*/,
                                 std::span<const Operand> /*inputs*/,
                                 std::span<const ir::TensorMeta> /*outputs*/) {
    return std::nullopt;
  }

  /// Whether the program kernels run program over shape on inputs.
  bool runs_program(const ir::Program& program, std::span<const Operand> inputs,
                    const Shape& shape) {
    uint64_t largest = 0;
    for (const Operand& input : inputs)
      largest = std::max<uint64_t>(largest, bytes_of(input.meta));
    for (const uint32_t result : program.outputs)
      largest = std::max<uint64_t>(largest, bytes_of({shape, program.instructions[result].dtype}));
    return programs_.runs(program, static_cast<uint64_t>(shape.num_elements()), largest);
  }

  Outputs run_program(const ir::Program& program, std::span<const Operand> inputs,
                      std::span<const Scalar> constants, const Shape& shape) {
    Outputs outputs;
    std::vector<BufferRange> output_ranges;
    for (const uint32_t result : program.outputs) {
      auto buffer = allocate({shape, program.instructions[result].dtype});
      output_ranges.push_back(buffer->range());
      outputs.push_back(std::move(buffer));
    }
    std::vector<BufferRange> input_ranges;
    std::vector<Shape> input_shapes;
    for (const Operand& input : inputs) {
      input_ranges.push_back(range_of(input.buffer));
      input_shapes.push_back(input.meta.shape);
    }
    programs_.run(program, input_ranges, input_shapes, output_ranges, constants, shape);
    return outputs;
  }

  std::shared_ptr<Context> context_;
  std::shared_ptr<CommandStream> stream_;
  std::shared_ptr<DevicePages> pages_;
  std::shared_ptr<pools::MemoryManager> memory_;
  KernelCache kernels_;
  ProgramKernels programs_;
  MatmulKernel matmul_;
  ReduceKernel reduce_;
};

}  // namespace

bool computes_in(const Features& features, DType dtype) {
  switch (dtype) {
    case DType::F64:
      return features.float64;
    case DType::F32:
      return true;
    case DType::F16:
      return features.float16 && features.storage16;
    case DType::BF16:
      return false;
    case DType::I64:
    case DType::I32:
    case DType::I16:
    case DType::I8:
    case DType::U64:
    case DType::U32:
    case DType::U16:
    case DType::U8:
    case DType::Bool:
      return true;
  }
  return false;
}

std::unique_ptr<backend::Backend> make_vulkan_backend(const PhysicalDevice& physical,
                                                      const std::string& name) {
  return std::make_unique<fusion::FusionBackend>(std::make_unique<VulkanBackend>(physical, name));
}

}  // namespace ember::vulkan
