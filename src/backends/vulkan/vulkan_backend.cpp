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
#include "backends/shader/shader_ops.h"
#include "backends/vulkan/command_stream.h"
#include "backends/vulkan/device_pages.h"
#include "backends/vulkan/kernel_cache.h"
#include "backends/vulkan/matmul_kernel.h"
#include "backends/vulkan/program_kernels.h"
#include "backends/vulkan/reduce_kernel.h"
#include "codegen/kernel_dims.h"
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

class VulkanBackend final : public backend::Backend, private shader::ShaderOps<VulkanBackend> {
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
    return allocate(static_cast<std::size_t>(shader::bytes_of(meta)));
  }

  // ---- the ops (backends/shader/shader_ops.h routes them) ----------------------------------
  friend class shader::ShaderOps<VulkanBackend>;

  ProgramKernels& programs() { return programs_; }
  static const BufferRange& range_of(const BufferPtr& buffer) {
    return static_cast<const DeviceBuffer&>(*buffer).range();
  }

  std::optional<Outputs> run_matmul(std::span<const Operand> inputs,
                                    std::span<const ir::TensorMeta> outputs) {
    if (!matmul_.takes(inputs[0].meta, inputs[1].meta, outputs[0])) return std::nullopt;
    auto out = allocate(outputs[0]);
    matmul_.run(range_of(inputs[0].buffer), range_of(inputs[1].buffer), out->range(),
                inputs[0].meta, inputs[1].meta, outputs[0]);
    return Outputs{out};
  }

  std::optional<Outputs> run_reduce(const ir::Reduce& reduce, std::span<const Operand> inputs,
                                    std::span<const ir::TensorMeta> outputs) {
    if (!reduce_.takes(reduce, inputs[0].meta)) return std::nullopt;
    auto out = allocate(outputs[0]);
    reduce_.run(reduce, range_of(inputs[0].buffer), inputs[0].meta, out->range());
    return Outputs{out};
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
