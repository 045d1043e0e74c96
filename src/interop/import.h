// What from_dlpack and from_external share: checking a foreign tensor's layout, then sharing its
// memory with the target device or copying it, as the Copy policy allows.
#pragma once

#include <string_view>

#include "backends/backend.h"
#include "ember/device.h"
#include "ember/interop.h"
#include "ember/tensor_handle.h"
#include "ir/ops.h"

namespace ember::interop {

/// A tensor in foreign host memory: memory.data is element [0, ..., 0], memory.strides has one
/// entry per dim (none: row-major), and memory.owner releases the memory when its last copy dies.
struct ForeignTensor {
  backend::HostMemory memory;
  ir::TensorMeta meta;
};

/// A tensor on device over foreign, sharing its memory where device's backend computes on it and
/// copy allows, else a row-major copy (unless copy is Never). foreign's owner is released when the
/// last tensor sharing the memory dies, at once otherwise (after a copy, or on a throw).
/// InvalidArgument "[op] ..." naming the value unless foreign's shape has rank >= 1 and no
/// negative dim, its bytes and those its strides reach fit in int64, it has one stride per dim,
/// data is not null when it has elements, and a Bool element is 0 or 1.
TensorHandle import_foreign(ForeignTensor foreign, const Device& device, Copy copy,
                            std::string_view op);

}  // namespace ember::interop
