#include "backends/wgpu/wgpu_backend.h"

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
#include "backends/wgpu/command_stream.h"
#include "backends/wgpu/device_pages.h"
#include "backends/wgpu/kernel_cache.h"
#include "backends/wgpu/matmul_kernel.h"
#include "backends/wgpu/program_kernels.h"
#include "backends/wgpu/reduce_kernel.h"
#include "backends/wgpu/timestamps.h"
#include "codegen/kernel_dims.h"
#include "ember/error.h"
#include "fusion/fusion_backend.h"
#include "fusion/op_by_op.h"
#include "ir/program.h"

namespace ember::wgpu {
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

class WgpuBackend final : public backend::Backend, private shader::ShaderOps<WgpuBackend> {
 public:
  WgpuBackend(const Adapter& adapter, const std::string& name)
      : context_(std::make_shared<Context>(adapter, name)),
        stream_(std::make_shared<CommandStream>(context_)),
        pages_(std::make_shared<DevicePages>(context_)),
        memory_(std::make_shared<pools::MemoryManager>(pages_, name)),
        kernels_(context_),
        programs_(adapter, kernels_, *stream_),
        matmul_(adapter, kernels_, *stream_),
        reduce_(adapter, kernels_, *stream_, [this](uint64_t bytes, BufferRange* range) {
          auto buffer = allocate(static_cast<std::size_t>(bytes));
          *range = buffer->range();
          return std::shared_ptr<const void>(std::move(buffer));
        }) {}

  ~WgpuBackend() override {
    try {
      stream_->sync();
    } catch (...) {
      // A poisoned device: nothing of its work is left to wait for.
    }
  }
  WgpuBackend(const WgpuBackend&) = delete;
  WgpuBackend& operator=(const WgpuBackend&) = delete;

  std::string name() const override { return "wgpu"; }
  std::string description() const override { return describe(context_->adapter()); }
  bool supports_dtype(DType dtype) const override { return computes_in(dtype); }

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
    // Without timestamp queries, profile uses the host clock between two syncs.
    if (!context_->adapter().timestamps) return nullptr;
    return wgpu::record_timestamp(stream_, context_);
  }

  std::optional<std::vector<SlicedPoolReport>> memory_pool_report() const override {
    return memory_->report();
  }
  std::optional<MemoryPoolUsage> memory_pool_usage() const override { return memory_->usage(); }
  void memory_cleanup() override {
    stream_->sync();
    memory_->cleanup();
  }
  void begin_persistent_allocations() override { memory_->set_persistent(true); }
  void end_persistent_allocations() noexcept override { memory_->set_persistent(false); }

 private:
  static std::string describe(const Adapter& adapter) {
    std::string text =
        adapter.name + " (WebGPU through wgpu-native over " + adapter.backend + "; dtypes:";
    for (DType dtype : kAllDTypes)
      if (computes_in(dtype)) text += " " + std::string(dtype_name(dtype));
    return text + (adapter.timestamps ? "; timestamps)" : "; no timestamps)");
  }

  void check_dtype(const std::string& what, DType dtype) const {
    if (supports_dtype(dtype)) return;
    throw InvalidArgument("[" + what + "] device " + context_->name() + " does not support dtype " +
                          std::string(dtype_name(dtype)) +
                          " (Device::supports_dtype says which it does: docs/backends/wgpu.md)");
  }

  std::shared_ptr<DeviceBuffer> allocate(std::size_t bytes) {
    return std::make_shared<DeviceBuffer>(memory_, *pages_, bytes);
  }
  std::shared_ptr<DeviceBuffer> allocate(const ir::TensorMeta& meta) {
    return allocate(static_cast<std::size_t>(shader::bytes_of(meta)));
  }

  // ---- the ops (backends/shader/shader_ops.h routes them) ----------------------------------
  friend class shader::ShaderOps<WgpuBackend>;

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

bool computes_in(DType dtype) {
  switch (dtype) {
    case DType::BF16:
      return false;
    case DType::F64:
    case DType::F32:
    case DType::F16:
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

std::unique_ptr<backend::Backend> make_wgpu_backend(const Adapter& adapter,
                                                    const std::string& name) {
  return std::make_unique<fusion::FusionBackend>(std::make_unique<WgpuBackend>(adapter, name));
}

}  // namespace ember::wgpu
