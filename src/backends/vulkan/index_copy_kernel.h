// The vulkan backend's kernels of data movement and indexing (full, cat, slice_assign, select,
// gather, select_assign, scatter): the GLSL of backends/shader/index_copy.h's three kernels
// (what each computes, its parameter words and dispatches are written there, shared with wgpu).
// Tensors are bound as arrays of 32-bit words; 1- and 2-byte elements are parts of words, written
// by atomicAnd and atomicOr, so no 8- or 16-bit storage is needed.
#pragma once

#include <cstdint>
#include <span>

#include "backends/shader/index_copy.h"
#include "backends/vulkan/device_pages.h"
#include "backends/vulkan/kernel_runner.h"

namespace ember::vulkan {

class IndexCopyKernel {
 public:
  explicit IndexCopyKernel(const KernelRunner& runner) : runner_(runner) {}

  /// What the device allows one kernel.
  const shader::DeviceLimits& limits() const { return runner_.limits(); }
  /// Records dispatch over tensors (index_copy.h names them per kernel), each bound rounded up to
  /// whole words (the pools' slices have room).
  void run(const shader::IndexCopyDispatch& dispatch, std::span<const BufferRange> tensors);

 private:
  KernelRunner runner_;
};

}  // namespace ember::vulkan
