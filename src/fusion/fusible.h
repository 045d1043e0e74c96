// Which ops the fusion decorator queues instead of running at once: the elementwise ops inside
// what the backend declares it fuses (backend::FusionSupport: dtypes, ops, rank) that cannot
// fail on their data. Running an op later must not move an error away from the call that
// caused it; only a device failure may surface from the call that executes the queue
// (stream.h).
#pragma once

#include <span>

#include "backends/backend.h"
#include "ir/ops.h"

namespace ember::fusion {

/// Whether op over inputs (one output, outputs[0]) may be queued and fused on a backend that
/// declares support.
bool is_fusible(const ir::Op& op, std::span<const backend::Operand> inputs,
                std::span<const ir::TensorMeta> outputs, const backend::FusionSupport& support);

}  // namespace ember::fusion
