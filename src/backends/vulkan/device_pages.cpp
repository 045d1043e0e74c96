#include "backends/vulkan/device_pages.h"

#include <new>
#include <optional>
#include <utility>

#include "ember/error.h"

namespace ember::vulkan {
namespace {

/// Whether result says the memory is not there: the pools then give their free pages back and
/// try once more, and name the bytes when that fails too.
bool out_of_memory(VkResult result) {
  return result == VK_ERROR_OUT_OF_DEVICE_MEMORY || result == VK_ERROR_OUT_OF_HOST_MEMORY;
}

}  // namespace

DevicePages::DevicePages(std::shared_ptr<Context> context, bool host_visible,
                         std::function<void()> before_give_back)
    : context_(std::move(context)),
      host_visible_(host_visible),
      before_give_back_(std::move(before_give_back)) {}

DevicePages::~DevicePages() {
  for (const Page& page : pages_.all())
    destroy(page);
}

std::byte* DevicePages::take(std::size_t bytes, std::size_t /*alignment*/) {
  const VkDevice device = context_->device();
  Page page;
  page.bytes = bytes;
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = bytes;
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
               VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  const VkResult created = vkCreateBuffer(device, &info, nullptr, &page.buffer);
  if (out_of_memory(created)) throw std::bad_alloc();
  context_->check(created, "vkCreateBuffer");
  VkMemoryRequirements needs;
  vkGetBufferMemoryRequirements(device, page.buffer, &needs);
  VkMemoryAllocateInfo allocation{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  allocation.allocationSize = needs.size;
  try {
    allocation.memoryTypeIndex = context_->memory_type(
        needs.memoryTypeBits,
        host_visible_ ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
                      : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  } catch (...) {
    destroy(page);
    throw;
  }
  const VkResult allocated = vkAllocateMemory(device, &allocation, nullptr, &page.memory);
  if (allocated != VK_SUCCESS) {
    destroy(page);
    if (out_of_memory(allocated)) throw std::bad_alloc();
    context_->check(allocated, "vkAllocateMemory");
  }
  try {
    context_->check(vkBindBufferMemory(device, page.buffer, page.memory, 0), "vkBindBufferMemory");
    if (host_visible_) {
      void* mapped = nullptr;
      context_->check(vkMapMemory(device, page.memory, 0, VK_WHOLE_SIZE, 0, &mapped),
                      "vkMapMemory");
      page.mapped = static_cast<std::byte*>(mapped);
    }
  } catch (...) {
    destroy(page);
    throw;
  }
  return pages_.add(page);
}

void DevicePages::give_back(std::byte* block, std::size_t /*bytes*/,
                            std::size_t /*alignment*/) noexcept {
  try {
    before_give_back_();
  } catch (...) {
    // A poisoned device: nothing runs on it any more, so the page is free to go.
  }
  if (const std::optional<Page> page = pages_.remove(block)) destroy(*page);
}

void DevicePages::destroy(const Page& page) noexcept {
  const VkDevice device = context_->device();
  if (page.buffer != VK_NULL_HANDLE) vkDestroyBuffer(device, page.buffer, nullptr);
  if (page.memory != VK_NULL_HANDLE) vkFreeMemory(device, page.memory, nullptr);
}

BufferRange DevicePages::locate(const std::byte* address, std::size_t bytes) const {
  const auto [page, offset] = pages_.find(address, bytes, context_->name());
  return {page.buffer, offset, bytes, page.mapped != nullptr ? page.mapped + offset : nullptr};
}

}  // namespace ember::vulkan
