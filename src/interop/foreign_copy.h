// Reading foreign strided host memory element by element: the copy an import falls back to, and
// the check that a Bool tensor's bytes are 0 or 1 (ember's kernels assume it).
#pragma once

#include <string_view>

#include "backends/backend.h"
#include "ember/tensor_data.h"
#include "ir/ops.h"

namespace ember::interop {

/// memory's elements of meta in row-major order; memory's layout passed check_layout (import.h).
TensorData copy_row_major(const backend::HostMemory& memory, const ir::TensorMeta& meta);

/// InvalidArgument "[op] Bool element [i, j] is 3, not 0 or 1" for the first such element.
void check_bool_values(const backend::HostMemory& memory, const ir::TensorMeta& meta,
                       std::string_view op);

}  // namespace ember::interop
