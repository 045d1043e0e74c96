// Which ops the fusion decorator queues instead of running at once: the elementwise ops whose
// element types are all F32 or Bool. Those never fail on their data (no integer division), so
// running them later cannot move an error away from the call that caused it, except a device
// failure, which surfaces from the call that executes the queue (stream.h).
#pragma once

#include <span>

#include "backends/backend.h"
#include "ir/ops.h"

namespace ember::fusion {

/// Whether a fused program may hold values of dtype.
bool is_fusible_dtype(DType dtype);
/// Whether op over inputs (one output, outputs[0]) may be queued and fused.
bool is_fusible(const ir::Op& op, std::span<const backend::Operand> inputs,
                std::span<const ir::TensorMeta> outputs);

}  // namespace ember::fusion
