#include "backends/wgpu/device_pages.h"

#include <new>
#include <string>

#include "ember/error.h"

namespace ember::wgpu {
namespace {

constexpr uintptr_t kPageSpacing = uintptr_t{1} << 16;

void on_memory_scope(WGPUPopErrorScopeStatus /*status*/, WGPUErrorType type,
                     WGPUStringView /*message*/, void* failed, void* /*unused*/) {
  *static_cast<bool*>(failed) = type == WGPUErrorType_OutOfMemory;
}

}  // namespace

DevicePages::DevicePages(std::shared_ptr<Context> context) : context_(std::move(context)) {}

DevicePages::~DevicePages() {
  for (const auto& [address, page] : pages_)
    wgpuBufferRelease(page.buffer);
}

std::byte* DevicePages::take(std::size_t bytes, std::size_t /*alignment*/) {
  context_->check_usable();
  if (bytes > context_->adapter().limits.maxBufferSize) throw std::bad_alloc();
  WGPUBufferDescriptor descriptor = WGPU_BUFFER_DESCRIPTOR_INIT;
  descriptor.usage = WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst;
  descriptor.size = padded(bytes);
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
  const std::lock_guard lock(mutex_);
  const uintptr_t address = next_;
  next_ += (bytes + 2 * kPageSpacing - 1) / kPageSpacing * kPageSpacing;
  pages_.emplace(address, Page{buffer, bytes});
  return reinterpret_cast<std::byte*>(address);
}

void DevicePages::give_back(std::byte* block, std::size_t /*bytes*/,
                            std::size_t /*alignment*/) noexcept {
  const std::lock_guard lock(mutex_);
  const auto found = pages_.find(reinterpret_cast<uintptr_t>(block));
  if (found == pages_.end()) return;
  wgpuBufferRelease(found->second.buffer);
  pages_.erase(found);
}

BufferRange DevicePages::locate(const std::byte* address, std::size_t bytes) const {
  const auto at = reinterpret_cast<uintptr_t>(address);
  const std::lock_guard lock(mutex_);
  auto found = pages_.upper_bound(at);
  if (found == pages_.begin())
    throw ExecutionError("[" + context_->name() + "] no page holds a buffer's address");
  --found;
  const uintptr_t offset = at - found->first;
  if (offset + bytes > found->second.bytes)
    throw ExecutionError("[" + context_->name() + "] a buffer lies outside its page");
  return {found->second.buffer, offset, bytes};
}

}  // namespace ember::wgpu
