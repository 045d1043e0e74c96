// Which ops the fusion decorator queues instead of running at once: the elementwise ops inside
// what the backend declares it fuses (backend::FusionSupport: dtypes, ops, rank) that cannot
// fail on their data, and expands where the backend reads them as broadcast inputs. Running an op
// later must not move an error away from the call that caused it; only a device failure may surface
// from the call that executes the queue (stream.h).
#pragma once

#include <cstdint>
#include <span>

#include "backends/backend.h"
#include "ir/ops.h"

namespace ember::fusion {

/// A backend's FusionSupport in the form the decorator asks on every op: the dtypes as bits.
class FusibleOps {
 public:
  explicit FusibleOps(const backend::FusionSupport& support);

  /// Whether op over inputs (one output, outputs[0]) may be queued and fused.
  bool admits(const ir::Op& op, std::span<const backend::Operand> inputs,
              std::span<const ir::TensorMeta> outputs) const;

 private:
  bool declared(DType dtype) const { return (dtypes_ >> static_cast<unsigned>(dtype)) & 1u; }

  uint32_t dtypes_ = 0;  ///< bit d: DType d is declared
  std::size_t max_rank_;
  bool (*fuses_op_)(const ir::Op&);
  bool fuses_expand_;
};

}  // namespace ember::fusion
