// DevicePages: the sliced pools' pages (backends/pools/page_source.h) as WebGPU storage buffers,
// at made-up addresses (shader/page_addresses.h) turned back into a buffer and an offset when a
// kernel binds a slice or a copy reads it (locate). wgpu keeps a buffer alive while submitted
// work uses it, so a page goes back at once.
#pragma once

#include <webgpu.h>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "backends/pools/page_source.h"
#include "backends/shader/page_addresses.h"
#include "backends/wgpu/wgpu_context.h"

namespace ember::wgpu {

/// A slice of a page: what a kernel binds, a copy reads or writes.
struct BufferRange {
  WGPUBuffer buffer = nullptr;
  uint64_t offset = 0;
  uint64_t bytes = 0;
};

/// bytes rounded up to WebGPU's copy and binding granularity (4 bytes).
inline uint64_t padded(uint64_t bytes) {
  return (bytes + 3) / 4 * 4;
}

/// bytes rounded up to whole vectors of 16 bytes: what the flat program kernels bind (their last
/// vector whole: an array's length counts whole vectors, and an access past them is not defined),
/// and so what every page holds (a slice starts at a multiple of 64 bytes, so has room for them).
inline uint64_t vector_padded(uint64_t bytes) {
  return (bytes + 15) / 16 * 16;
}

class DevicePages final : public pools::PageSource {
 public:
  explicit DevicePages(std::shared_ptr<Context> context);
  ~DevicePages() override;
  DevicePages(const DevicePages&) = delete;
  DevicePages& operator=(const DevicePages&) = delete;

  /// A new page of bytes; std::bad_alloc when the device is out of memory or the page is past
  /// the adapter's largest buffer (the pools then give their free pages back and try again).
  std::byte* take(std::size_t bytes, std::size_t alignment) override;
  void give_back(std::byte* block, std::size_t bytes, std::size_t alignment) noexcept override;
  bool is_host_memory() const override { return false; }

  /// The page holding [address, address + bytes): its buffer and the offset in it.
  BufferRange locate(const std::byte* address, std::size_t bytes) const;

 private:
  struct Page {
    WGPUBuffer buffer = nullptr;
    std::size_t bytes = 0;
  };

  std::shared_ptr<Context> context_;
  shader::PageAddresses<Page> pages_;
};

}  // namespace ember::wgpu
