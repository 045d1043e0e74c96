#include "backends/wgpu/device_pages.h"

#include <new>
#include <optional>
#include <string>

#include "ember/error.h"

namespace ember::wgpu {
namespace {

void on_memory_scope(WGPUPopErrorScopeStatus /*status*/, WGPUErrorType type,
                     WGPUStringView /*message*/, void* failed, void* /*unused*/) {
  *static_cast<bool*>(failed) = type == WGPUErrorType_OutOfMemory;
}

}  // namespace

DevicePages::DevicePages(std::shared_ptr<Context> context) : context_(std::move(context)) {}

DevicePages::~DevicePages() {
  for (const Page& page : pages_.all())
    wgpuBufferRelease(page.buffer);
}

std::byte* DevicePages::take(std::size_t bytes, std::size_t /*alignment*/) {
  context_->check_usable();
  if (vector_padded(bytes) > context_->adapter().limits.maxBufferSize) throw std::bad_alloc();
  WGPUBufferDescriptor descriptor = WGPU_BUFFER_DESCRIPTOR_INIT;
  descriptor.usage = WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst;
  descriptor.size = vector_padded(bytes);
  // Out of memory is an error of the scope, not of the device (which it would poison).
  wgpuDevicePushErrorScope(context_->device(), WGPUErrorFilter_OutOfMemory);
  const WGPUBuffer buffer = wgpuDeviceCreateBuffer(context_->device(), &descriptor);
  bool failed = false;
  WGPUPopErrorScopeCallbackInfo callback = WGPU_POP_ERROR_SCOPE_CALLBACK_INFO_INIT;
  callback.mode = WGPUCallbackMode_AllowSpontaneous;
  callback.callback = on_memory_scope;
  callback.userdata1 = &failed;
  wgpuDevicePopErrorScope(context_->device(), callback);
  if (failed || buffer == nullptr) {
    if (buffer != nullptr) wgpuBufferRelease(buffer);
    throw std::bad_alloc();
  }
  return pages_.add(Page{buffer, bytes});
}

void DevicePages::give_back(std::byte* block, std::size_t /*bytes*/,
                            std::size_t /*alignment*/) noexcept {
  if (const std::optional<Page> page = pages_.remove(block)) wgpuBufferRelease(page->buffer);
}

BufferRange DevicePages::locate(const std::byte* address, std::size_t bytes) const {
  const auto [page, offset] = pages_.find(address, bytes, context_->name());
  return {page.buffer, offset, bytes};
}

}  // namespace ember::wgpu
