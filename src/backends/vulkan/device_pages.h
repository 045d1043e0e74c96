// DevicePages: the sliced pools' pages (backends/pools/page_source.h) as Vulkan buffers, each
// over memory of its own, at made-up addresses (shader/page_addresses.h: Vulkan memory has none
// the pools could keep), a slice's turned back into its page's buffer and an offset when a kernel
// binds it (locate). The tensors' pages are device-local; the staging pages (uploads, downloads,
// kernel parameters) host-visible, coherent and mapped for their whole life.
#pragma once

#include <vulkan/vulkan.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include "backends/pools/page_source.h"
#include "backends/shader/page_addresses.h"
#include "backends/vulkan/vulkan_context.h"

namespace ember::vulkan {

/// A slice of a page: what a kernel binds, a copy reads or writes.
struct BufferRange {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceSize offset = 0;
  VkDeviceSize bytes = 0;
  std::byte* mapped = nullptr;  ///< the host's view of the slice (staging pages only)
};

class DevicePages final : public pools::PageSource {
 public:
  /// host_visible: staging pages. before_give_back runs before a page is destroyed (the command
  /// stream waits for the work that may still use it).
  DevicePages(std::shared_ptr<Context> context, bool host_visible,
              std::function<void()> before_give_back);
  ~DevicePages() override;
  DevicePages(const DevicePages&) = delete;
  DevicePages& operator=(const DevicePages&) = delete;

  /// A new page of bytes; std::bad_alloc when the device is out of memory (the pools then give
  /// their free pages back and try again).
  std::byte* take(std::size_t bytes, std::size_t alignment) override;
  void give_back(std::byte* block, std::size_t bytes, std::size_t alignment) noexcept override;
  bool is_host_memory() const override { return false; }

  /// The page holding [address, address + bytes): its buffer and the offset in it.
  BufferRange locate(const std::byte* address, std::size_t bytes) const;

 private:
  struct Page {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    std::size_t bytes = 0;
    std::byte* mapped = nullptr;
  };
  void destroy(const Page& page) noexcept;

  std::shared_ptr<Context> context_;
  bool host_visible_;
  std::function<void()> before_give_back_;
  shader::PageAddresses<Page> pages_;
};

}  // namespace ember::vulkan
