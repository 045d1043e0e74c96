// The capture backend (docs/backends/capture.md): tensors are symbolic, shape and dtype only.
// Every op records a node of the graph (capture_node.h) instead of computing; uploaded data
// becomes a constant; reading values is an error naming the way to get them (replaying the
// graph on a real device, ember/graph.h).
#pragma once

#include <span>
#include <string>

#include "backends/backend.h"

namespace ember::backend::capture {

class CaptureBackend final : public Backend {
 public:
  std::string name() const override { return "capture"; }
  std::string description() const override;
  /// Every dtype: nothing is computed here, so any op a real device may run can be recorded.
  bool supports_dtype(DType dtype) const override;
  /// Yes: a graph records the fused row ops themselves, and its replay runs each fused where
  /// the replay device does, as its composite elsewhere (Graph::replay), as eager code would.
  bool runs_fused_rows(const ir::Op& op, std::span<const ir::TensorMeta> inputs) const override;
  Outputs execute(const ir::Op& op, std::span<const Operand> inputs,
                  std::span<const ir::TensorMeta> outputs) override;
  BufferPtr write(const TensorData& data) override;
  /// Throws InvalidArgument: a capture tensor has no values.
  TensorData read(const Operand& operand) override;
};

}  // namespace ember::backend::capture
