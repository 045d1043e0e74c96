// The wgpu backend's kernels of data movement and indexing (full, cat, slice_assign, select,
// gather, select_assign, scatter): the WGSL of backends/shader/index_copy.h's three kernels
// (what each computes, its parameter words and dispatches are written there, shared with vulkan).
// Tensors are bound as arrays of 32-bit words; 1- and 2-byte elements are parts of words, written
// by atomicAnd and atomicOr into an array of atomic words.
#pragma once

#include <cstdint>
#include <span>

#include "backends/shader/index_copy.h"
#include "backends/wgpu/command_stream.h"
#include "backends/wgpu/device_pages.h"
#include "backends/wgpu/kernel_cache.h"

namespace ember::wgpu {

class IndexCopyKernel {
 public:
  IndexCopyKernel(const Adapter& adapter, KernelCache& kernels, CommandStream& stream);

  /// The most bytes of a tensor one binding reaches.
  uint64_t max_binding() const { return max_binding_; }
  /// The most workgroups of a dispatch.
  uint32_t max_groups() const { return max_groups_; }
  /// Records dispatch over tensors (index_copy.h names them per kernel).
  void run(const shader::IndexCopyDispatch& dispatch, std::span<const BufferRange> tensors);

 private:
  uint64_t max_binding_;
  uint32_t max_groups_;
  KernelCache& kernels_;
  CommandStream& stream_;
};

}  // namespace ember::wgpu
