// The host path of a backend without a kernel of its own for some op (cuda, libtorch): the op's
// inputs read back to the host, ndarray's kernel run on them, its results written to the backend.
// Values are ndarray's, so exact; each input and result crosses to the host and back.
#pragma once

#include <span>

#include "backends/backend.h"

namespace ember::ndarray {

/// op run by its ndarray kernel on inputs of backend (read through backend.read), its results
/// written through backend.write: one buffer per output.
backend::Outputs run_on_host(backend::Backend& backend, const ir::Op& op,
                             std::span<const backend::Operand> inputs,
                             std::span<const ir::TensorMeta> outputs);

}  // namespace ember::ndarray
