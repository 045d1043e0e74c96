// NdArrayBackend: the reference backend. Every op of src/ir/ops.h for every dtype its rule
// allows, as plain loops over contiguous host data; the oracle the test suite compares against.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "backends/backend.h"

namespace ember::ndarray {

class NdArrayBackend final : public backend::Backend {
 public:
  std::string name() const override { return "ndarray"; }
  std::string description() const override { return "reference CPU backend (plain loops)"; }
  bool supports_dtype(DType /*dtype*/) const override { return true; }

  backend::Outputs execute(const ir::Op& op, std::span<const backend::Operand> inputs,
                           std::span<const ir::TensorMeta> outputs) override;
  backend::BufferPtr write(const TensorData& data) override;
  TensorData read(const backend::Operand& operand) override;
  /// The buffer's own bytes, row-major. Note: ndarray does not wrap foreign memory (its kernels
  /// read a TensorData, which owns its bytes), so a tensor moved onto it is copied.
  std::optional<backend::HostMemory> share_host_memory(const backend::Operand& operand) override;
};

}  // namespace ember::ndarray
