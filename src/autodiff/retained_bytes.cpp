#include "autodiff/retained_bytes.h"

#include <mutex>
#include <unordered_map>
#include <utility>

#include "ember/autodiff.h"
#include "tensor/for_autodiff.h"

namespace ember::autodiff {
namespace {

/// How many RetainedHandles hold one buffer, and its size.
struct BufferUse {
  uint64_t holders = 0;
  uint64_t bytes = 0;
};

/// The buffers retained on one physical device.
struct DeviceUse {
  std::unordered_map<const backend::Buffer*, BufferUse> buffers;
  uint64_t bytes = 0;
};

/// Every device's retained buffers. Devices compare by hardware identity, so Device values that
/// differ only in autodiff or checkpointing share one entry.
class Registry {
 public:
  static Registry& instance() {
    static Registry registry;
    return registry;
  }

  void add(const detail::TensorImpl& impl) {
    // A view may name its buffer with a larger shape than an earlier holder: count the largest.
    const uint64_t bytes =
        static_cast<uint64_t>(impl.meta.shape.num_elements()) * dtype_size(impl.meta.dtype);
    const std::lock_guard lock(mutex_);
    DeviceUse& device = devices_[impl.device];
    BufferUse& use = device.buffers[impl.buffer.get()];
    ++use.holders;
    if (bytes > use.bytes) {
      device.bytes += bytes - use.bytes;
      use.bytes = bytes;
    }
  }

  void remove(const detail::TensorImpl& impl) {
    const std::lock_guard lock(mutex_);
    DeviceUse& device = devices_.at(impl.device);  // add() created it
    const auto it = device.buffers.find(impl.buffer.get());
    if (--it->second.holders > 0) return;
    device.bytes -= it->second.bytes;
    device.buffers.erase(it);
  }

  uint64_t bytes(const Device& device) {
    const std::lock_guard lock(mutex_);
    const auto it = devices_.find(device);
    return it == devices_.end() ? 0 : it->second.bytes;
  }

 private:
  std::mutex mutex_;
  std::unordered_map<Device, DeviceUse> devices_;
};

}  // namespace

RetainedHandle::RetainedHandle(const TensorHandle& x) : handle_(ops::detach(x)) {
  // A zero-size tensor may have no buffer: nothing to count.
  if (handle_.impl()->buffer) Registry::instance().add(*handle_.impl());
}

RetainedHandle::~RetainedHandle() {
  reset();
}

RetainedHandle::RetainedHandle(RetainedHandle&& other) noexcept
    : handle_(std::exchange(other.handle_, TensorHandle())) {}

RetainedHandle& RetainedHandle::operator=(RetainedHandle&& other) noexcept {
  if (this != &other) {
    reset();
    handle_ = std::exchange(other.handle_, TensorHandle());
  }
  return *this;
}

void RetainedHandle::reset() {
  if (handle_.defined() && handle_.impl()->buffer) Registry::instance().remove(*handle_.impl());
  handle_ = TensorHandle();
}

uint64_t retained_bytes(const Device& device) {
  return Registry::instance().bytes(device);
}

}  // namespace ember::autodiff
