// CommandStream: the device's one queue, fed in batches. Copies and dispatches are recorded into
// the current command encoder (WebGPU orders the passes of one encoder and synchronizes their
// buffers itself); flush submits it (also every 64 commands), sync waits for the queue. An upload
// goes through wgpuQueueWriteBuffer after a flush (a queue write lands before the next
// submission, so the work recorded before it must be submitted first: it may read the slice the
// upload fills); a download copies into a mapped staging buffer and waits. The batch's kernels'
// parameter blocks lie in one buffer, written by one queue write just before the batch is
// submitted (a buffer made for each dispatch cost the host a device allocation per kernel).
// After each submission and wait the context is checked: an error poisons it (wgpu_context.h).
#pragma once

#include <webgpu.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "backends/wgpu/device_pages.h"
#include "backends/wgpu/kernel_cache.h"
#include "backends/wgpu/wgpu_context.h"

namespace ember::wgpu {

class CommandStream {
 public:
  explicit CommandStream(std::shared_ptr<Context> context);
  ~CommandStream();
  CommandStream(const CommandStream&) = delete;
  CommandStream& operator=(const CommandStream&) = delete;

  /// Records kernel over groups_x x groups_y x groups_z workgroups: binding 0 a storage buffer
  /// of parameters (copied now), bindings 1.. tensors (each bound from its offset, its bytes
  /// rounded up to 4).
  void dispatch(const Kernel& kernel, std::span<const std::byte> parameters,
                std::span<const BufferRange> tensors, uint32_t groups_x, uint32_t groups_y = 1,
                uint32_t groups_z = 1);
  /// Records zeroing range's bytes (rounded up to 4).
  void fill_zero(const BufferRange& range);
  /// Writes bytes at range (after the work recorded so far).
  void upload(std::span<const std::byte> bytes, const BufferRange& range);
  /// Reads range's first out.size() bytes into out, after the work recorded so far; waits.
  void download(const BufferRange& range, std::span<std::byte> out);

  /// Copies source's first bytes (a multiple of 4) into target (a MapRead buffer), after the work
  /// recorded so far, and waits for them: read_mapped then reads them.
  void copy_to_readable(WGPUBuffer source, uint64_t offset, WGPUBuffer target, uint64_t bytes);
  /// Copies target's first out.size() bytes (target a MapRead buffer whose copy has run) to out.
  void read_mapped(WGPUBuffer target, std::span<std::byte> out);
  /// The encoder recording the current batch (made on first use), for a command of its own (a
  /// copy, a timestamp): the batch's compute pass, if open, is ended first.
  WGPUCommandEncoder encoder();

  void flush();
  void sync();

 private:
  /// A staging buffer for downloads of at least bytes.
  WGPUBuffer staging(uint64_t bytes);

  /// Where the next parameter block of size bytes goes in the batch's parameter buffer (made on
  /// the batch's first dispatch); submits the batch first when the buffer is full.
  uint64_t parameter_offset(uint64_t bytes);

  /// The compute pass the batch's consecutive dispatches share (one pass each cost wgpu a pass's
  /// validation and resource tracking per kernel; it orders the dispatches inside a pass too).
  WGPUComputePassEncoder compute_pass();
  void end_compute_pass();

  std::shared_ptr<Context> context_;
  WGPUCommandEncoder encoder_ = nullptr;
  WGPUComputePassEncoder pass_ = nullptr;
  WGPUBuffer parameters_ = nullptr;  ///< the batch's parameter blocks (none: no dispatch yet)
  std::vector<std::byte> parameter_bytes_;  ///< their contents, written at flush
  int commands_ = 0;
  WGPUBuffer staging_ = nullptr;
  uint64_t staging_bytes_ = 0;
};

}  // namespace ember::wgpu
