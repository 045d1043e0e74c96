// FlexBackend: the fast eager CPU backend. Tensors are strided views over shared, aligned
// storage (view.h), so layout ops are zero-copy; GEMM and convolution go through OpenBLAS,
// elementwise ops, activations, reductions and softmax through Highway SIMD on a shared thread
// pool; every other op (or dtype) runs the ndarray reference kernel (fallback.h).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "backends/backend.h"

namespace ember::flex {

class FlexBackend final : public backend::Backend {
 public:
  std::string name() const override { return "flex"; }
  std::string description() const override;
  bool supports_dtype(DType /*dtype*/) const override { return true; }

  std::vector<backend::BufferPtr> execute(const ir::Op& op,
                                          std::span<const backend::Operand> inputs,
                                          std::span<const ir::TensorMeta> outputs) override;
  backend::BufferPtr write(const TensorData& data) override;
  TensorData read(const backend::Operand& operand) override;
};

}  // namespace ember::flex
