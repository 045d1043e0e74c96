// DevicePages: the pools' pages (backends/pools/page_source.h) in one GPU's memory, from
// cuMemAlloc (never managed memory). The pools' bookkeeping holds device addresses as it holds
// host ones; no byte of a page is touched from the host.
#pragma once

#include <cstddef>
#include <memory>

#include "backends/cuda/gpu_context.h"
#include "backends/cuda/launch_queue.h"
#include "backends/pools/page_source.h"

namespace ember::cuda {

class DevicePages final : public pools::PageSource {
 public:
  /// queue: the device's held-back launches, issued before a page goes back.
  DevicePages(std::shared_ptr<const GpuContext> gpu, std::shared_ptr<LaunchQueue> queue)
      : gpu_(std::move(gpu)), queue_(std::move(queue)) {}

  /// cuMemAlloc's memory (aligned to 256 bytes at least); std::bad_alloc when the GPU is out of
  /// memory, so the pools give their free pages back and try again.
  std::byte* take(std::size_t bytes, std::size_t alignment) override;
  /// Issues the queued launches and waits for the stream (a kernel queued before the page's last
  /// slice was freed may still read it), then cuMemFree.
  void give_back(std::byte* block, std::size_t bytes, std::size_t alignment) noexcept override;
  bool is_host_memory() const override { return false; }

 private:
  std::shared_ptr<const GpuContext> gpu_;
  std::shared_ptr<LaunchQueue> queue_;
};

/// The device address of a pool's block.
inline CUdeviceptr device_address(const std::byte* block) {
  return reinterpret_cast<CUdeviceptr>(block);
}

}  // namespace ember::cuda
