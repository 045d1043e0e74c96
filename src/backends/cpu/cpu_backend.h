// The cpu backend (Device::cpu()): flex's kernels with storage from sliced memory pools
// (memory_manager.h), so a training loop reuses its memory instead of asking the OS each step,
// and weights built under Device::memory_persistent_allocations get exact-size blocks of their
// own; all of it behind the fusion decorator (src/fusion), so chains of elementwise ops run as one
// pass over memory.
#pragma once

#include <memory>

#include "backends/backend.h"

namespace ember::cpu {

/// A new cpu backend with memory pools of its own.
std::unique_ptr<backend::Backend> make_cpu_backend();

}  // namespace ember::cpu
