// DevicePages: the pools' pages (backends/pools/page_source.h) in one GPU's memory, from
// cuMemAlloc (never managed memory). The pools' bookkeeping holds device addresses as it holds
// host ones; no byte of a page is touched from the host.
#pragma once

#include <cstddef>
#include <memory>

#include "backends/cuda/gpu_context.h"
#include "backends/pools/page_source.h"

namespace ember::cuda {

class DevicePages final : public pools::PageSource {
 public:
  explicit DevicePages(std::shared_ptr<const GpuContext> gpu) : gpu_(std::move(gpu)) {}

  /// cuMemAlloc's memory (aligned to 256 bytes at least); std::bad_alloc when the GPU is out of
  /// memory, so the pools give their free pages back and try again.
  std::byte* take(std::size_t bytes, std::size_t alignment) override;
  /// Waits for the stream (a kernel queued before the page's last slice was freed may still read
  /// it), then cuMemFree.
  void give_back(std::byte* block, std::size_t bytes, std::size_t alignment) noexcept override;
  bool is_host_memory() const override { return false; }

 private:
  std::shared_ptr<const GpuContext> gpu_;
};

/// The device address of a pool's block.
inline CUdeviceptr device_address(const std::byte* block) {
  return reinterpret_cast<CUdeviceptr>(block);
}

}  // namespace ember::cuda
