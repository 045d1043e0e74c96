// FlexBackend: the fast eager CPU backend. Tensors are strided views over shared, aligned
// storage (view.h), so layout ops are zero-copy; GEMM goes through OpenBLAS, oneDNN or ember's
// own (blas.h), convolution through oneDNN (or im2col and GEMM), elementwise ops, activations,
// reductions and softmax through Highway SIMD on a shared thread pool; every other op (or dtype)
// runs the ndarray reference kernel (fallback.h).
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "backends/backend.h"
#include "backends/flex/allocator.h"

namespace ember::flex {

class FlexBackend final : public backend::Backend {
 public:
  /// Storage from aligned operator new/delete.
  FlexBackend() : FlexBackend(new_delete_allocator()) {}
  /// Storage from allocator, which every storage it allocated keeps alive.
  explicit FlexBackend(std::shared_ptr<Allocator> allocator) : allocator_(std::move(allocator)) {}

  std::string name() const override { return "flex"; }
  std::string description() const override;
  bool supports_dtype(DType /*dtype*/) const override { return true; }

  backend::Outputs execute(const ir::Op& op, std::span<const backend::Operand> inputs,
                           std::span<const ir::TensorMeta> outputs) override;
  /// Fused f32/bool programs of any rank run tile by tile on the thread pool (fused.h), or as
  /// machine code (jit_program.h).
  backend::FusionSupport fusion_support() const override;
  backend::Outputs execute_fused(const ir::Program& program,
                                 std::span<const backend::Operand> inputs,
                                 std::span<const Scalar> constants, const Shape& shape) override;
  /// LayerNorm and CrossEntropy run as one pass over their rows (norm.cpp, cross_entropy.cpp),
  /// bf16 and f16 in f32; SoftmaxGrad along contiguous rows, and softmax's (not log-softmax's)
  /// across rows too (activation.cpp).
  bool runs_fused_rows(const ir::Op& op, std::span<const ir::TensorMeta> inputs) const override;
  backend::BufferPtr write(const TensorData& data) override;
  /// fill writes into the new buffer's storage, from the current allocator (the cpu backend's
  /// pools).
  backend::BufferPtr write_from(const ir::TensorMeta& meta,
                                const std::function<void(std::span<std::byte>)>& fill) override;
  TensorData read(const backend::Operand& operand) override;
  /// The view's storage, strides as they are (host_memory.h).
  std::optional<backend::HostMemory> share_host_memory(const backend::Operand& operand) override;
  /// A view over memory, any strides; null when memory is not aligned to its elements.
  backend::BufferPtr wrap_host_memory(const backend::HostMemory& memory,
                                      const ir::TensorMeta& meta) override;
  /// Frees the buffer ember's own GEMM keeps between products (packing_buffer.h).
  void memory_cleanup() override;

 private:
  // Installed as the current allocator (allocator.h) while a call allocates storage.
  std::shared_ptr<Allocator> allocator_;
};

}  // namespace ember::flex
