#include "backends/cpu/cpu_backend.h"

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "backends/flex/allocator.h"
#include "backends/flex/flex_backend.h"
#include "backends/pools/memory_manager.h"
#include "fusion/fusion_backend.h"

namespace ember::cpu {
namespace {

using pools::MemoryManager;

/// The pools as flex's allocator.
class PooledAllocator final : public flex::Allocator {
 public:
  static_assert(MemoryManager::kAlignment == flex::Allocator::kAlignment);

  explicit PooledAllocator(std::shared_ptr<MemoryManager> memory) : memory_(std::move(memory)) {}
  std::byte* allocate(std::size_t bytes) override { return memory_->allocate(bytes); }
  void deallocate(std::byte* data, std::size_t bytes) noexcept override {
    memory_->deallocate(data, bytes);
  }

 private:
  std::shared_ptr<MemoryManager> memory_;
};

/// flex with the pools as its allocator: every call goes to flex but the memory calls, which go
/// to the pools.
class CpuBackend final : public backend::Backend {
 public:
  CpuBackend()
      : memory_(std::make_shared<MemoryManager>()),
        flex_(std::make_shared<PooledAllocator>(memory_)) {}

  std::string name() const override { return "cpu"; }
  std::string description() const override {
    return flex_.description() + " on sliced memory pools";
  }
  bool supports_dtype(DType dtype) const override { return flex_.supports_dtype(dtype); }
  DeviceSettings default_settings() const override { return flex_.default_settings(); }

  backend::Outputs execute(const ir::Op& op, std::span<const backend::Operand> inputs,
                           std::span<const ir::TensorMeta> outputs) override {
    return flex_.execute(op, inputs, outputs);
  }
  backend::FusionSupport fusion_support() const override { return flex_.fusion_support(); }
  bool runs_fused_rows(const ir::Op& op, std::span<const ir::TensorMeta> inputs) const override {
    return flex_.runs_fused_rows(op, inputs);
  }
  backend::Outputs execute_fused(const ir::Program& program,
                                 std::span<const backend::Operand> inputs,
                                 std::span<const Scalar> constants, const Shape& shape) override {
    return flex_.execute_fused(program, inputs, constants, shape);
  }
  backend::BufferPtr write(const TensorData& data) override { return flex_.write(data); }
  backend::BufferPtr write_from(const ir::TensorMeta& meta,
                                const std::function<void(std::span<std::byte>)>& fill) override {
    return flex_.write_from(meta, fill);
  }
  TensorData read(const backend::Operand& operand) override { return flex_.read(operand); }
  // Shared storage keeps its pool slice (and the pools) alive through the buffer it came from.
  std::optional<backend::HostMemory> share_host_memory(const backend::Operand& operand) override {
    return flex_.share_host_memory(operand);
  }
  backend::BufferPtr wrap_host_memory(const backend::HostMemory& memory,
                                      const ir::TensorMeta& meta) override {
    return flex_.wrap_host_memory(memory, meta);
  }
  void sync() override { flex_.sync(); }
  void flush() override { flex_.flush(); }
  void staging(std::span<TensorData*> data) override { flex_.staging(data); }

  std::optional<std::vector<SlicedPoolReport>> memory_pool_report() const override {
    return memory_->report();
  }
  std::optional<MemoryPoolUsage> memory_pool_usage() const override { return memory_->usage(); }
  void memory_cleanup() override {
    memory_->cleanup();
    flex_.memory_cleanup();
  }
  void begin_persistent_allocations() override { memory_->set_persistent(true); }
  void end_persistent_allocations() noexcept override { memory_->set_persistent(false); }

 private:
  // Shared with every storage allocated from it, so tensors may outlive this backend.
  std::shared_ptr<MemoryManager> memory_;
  flex::FlexBackend flex_;
};

}  // namespace

std::unique_ptr<backend::Backend> make_cpu_backend() {
  return std::make_unique<fusion::FusionBackend>(std::make_unique<CpuBackend>());
}

}  // namespace ember::cpu
