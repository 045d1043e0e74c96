// Sharing flex storage as host memory, and flex views over foreign host memory
// (Backend::share_host_memory, wrap_host_memory): a view's strides are DLPack's, so any layout
// crosses both ways without a copy.
#pragma once

#include <optional>

#include "backends/backend.h"
#include "backends/flex/view.h"

namespace ember::flex {

/// view's elements, kept alive by owner (the buffer holding view).
backend::HostMemory share_view(const View& view, backend::BufferPtr owner);

/// A view of meta over memory, holding memory.owner; nullopt when memory.data is not aligned to
/// meta's element size (the kernels read elements through typed pointers) or its layout
/// overflows.
std::optional<View> view_over(const backend::HostMemory& memory, const ir::TensorMeta& meta);

}  // namespace ember::flex
