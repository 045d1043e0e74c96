#include "backends/wgpu/wgpu_context.h"

#include <wgpu.h>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "ember/error.h"

namespace ember::wgpu {
namespace {

std::string text_of(WGPUStringView view) {
  if (view.data == nullptr) return "";
  if (view.length == WGPU_STRLEN) return view.data;
  return {view.data, view.length};
}

/// The process's instance; nullptr when wgpu-native cannot make one.
WGPUInstance instance() {
  static const WGPUInstance handle = wgpuCreateInstance(nullptr);
  return handle;
}

/// The kind's type of an adapter type; nullopt-like Default for one ember does not name.
DeviceKind::Type type_of(WGPUAdapterType type) {
  switch (type) {
    case WGPUAdapterType_DiscreteGPU:
      return DeviceKind::Type::DiscreteGpu;
    case WGPUAdapterType_IntegratedGPU:
      return DeviceKind::Type::IntegratedGpu;
    case WGPUAdapterType_CPU:
      return DeviceKind::Type::Cpu;
    default:
      return DeviceKind::Type::Default;
  }
}

DeviceKind kind_of(DeviceKind::Type type, uint32_t index) {
  if (type == DeviceKind::Type::DiscreteGpu) return DeviceKind::discrete_gpu(index);
  if (type == DeviceKind::Type::IntegratedGpu) return DeviceKind::integrated_gpu(index);
  return DeviceKind::cpu();
}

std::string backend_name(WGPUBackendType type) {
  switch (type) {
    case WGPUBackendType_Vulkan:
      return "Vulkan";
    case WGPUBackendType_Metal:
      return "Metal";
    case WGPUBackendType_D3D12:
      return "D3D12";
    default:
      return "another API";
  }
}

std::vector<Adapter> find_adapters() {
  const WGPUInstance handle = instance();
  if (handle == nullptr) return {};
  WGPUInstanceEnumerateAdapterOptions options{};
  options.backends = WGPUInstanceBackend_Primary;
  const std::size_t count = wgpuInstanceEnumerateAdapters(handle, &options, nullptr);
  std::vector<WGPUAdapter> handles(count);
  if (count > 0) wgpuInstanceEnumerateAdapters(handle, &options, handles.data());
  std::vector<Adapter> found;
  std::array<uint32_t, 2> of_type{};  // discrete, integrated
  for (WGPUAdapter adapter : handles) {
    WGPUAdapterInfo info = WGPU_ADAPTER_INFO_INIT;
    Adapter a;
    const DeviceKind::Type type = wgpuAdapterGetInfo(adapter, &info) == WGPUStatus_Success
                                      ? type_of(info.adapterType)
                                      : DeviceKind::Type::Default;
    const bool gpu =
        type == DeviceKind::Type::DiscreteGpu || type == DeviceKind::Type::IntegratedGpu;
    const bool first_cpu = type == DeviceKind::Type::Cpu &&
                           std::none_of(found.begin(), found.end(), [](const Adapter& other) {
                             return other.kind.type() == DeviceKind::Type::Cpu;
                           });
    // The pools' slices are 64 bytes apart: a kernel binds a tensor at a slice's offset. Only the
    // first CPU adapter has a kind (DeviceKind::cpu() has no index).
    if ((!gpu && !first_cpu) || wgpuAdapterGetLimits(adapter, &a.limits) != WGPUStatus_Success ||
        a.limits.minStorageBufferOffsetAlignment > 64) {
      wgpuAdapterInfoFreeMembers(info);
      wgpuAdapterRelease(adapter);
      continue;
    }
    a.handle = adapter;
    a.kind = kind_of(type, gpu ? of_type[type == DeviceKind::Type::DiscreteGpu ? 0 : 1]++ : 0);
    a.name = text_of(info.device);
    a.backend = backend_name(info.backendType);
    a.timestamps =
        wgpuAdapterHasFeature(adapter, WGPUFeatureName_TimestampQuery) &&
        wgpuAdapterHasFeature(
            adapter, static_cast<WGPUFeatureName>(WGPUNativeFeature_TimestampQueryInsideEncoders));
    wgpuAdapterInfoFreeMembers(info);
    found.push_back(std::move(a));
  }
  return found;
}

void on_device(WGPURequestDeviceStatus status, WGPUDevice device, WGPUStringView message,
               void* result, void* error) {
  if (status == WGPURequestDeviceStatus_Success)
    *static_cast<WGPUDevice*>(result) = device;
  else
    *static_cast<std::string*>(error) = text_of(message);
}

void on_error(WGPUDevice const* /*device*/, WGPUErrorType /*type*/, WGPUStringView message,
              void* context, void* /*unused*/) {
  static_cast<Context*>(context)->poison(text_of(message));
}

void on_lost(WGPUDevice const* /*device*/, WGPUDeviceLostReason reason, WGPUStringView message,
             void* context, void* /*unused*/) {
  // Destroyed: the context's own release at its end, not a failure.
  if (reason == WGPUDeviceLostReason_Destroyed || reason == WGPUDeviceLostReason_CallbackCancelled)
    return;
  static_cast<Context*>(context)->poison("the device was lost: " + text_of(message));
}

}  // namespace

const std::vector<Adapter>& adapters() {
  static const std::vector<Adapter> found = find_adapters();
  return found;
}

const Adapter* select(const DeviceKind& kind) {
  if (kind.type() == DeviceKind::Type::Default) {
    for (const DeviceKind::Type type :
         {DeviceKind::Type::DiscreteGpu, DeviceKind::Type::IntegratedGpu, DeviceKind::Type::Cpu})
      for (const Adapter& adapter : adapters())
        if (adapter.kind.type() == type) return &adapter;
    return nullptr;
  }
  for (const Adapter& adapter : adapters())
    if (adapter.kind == kind) return &adapter;
  return nullptr;
}

WGPUStringView view(const std::string& text) {
  return {text.data(), text.size()};
}

Context::Context(const Adapter& adapter, std::string name)
    : adapter_(adapter), name_(std::move(name)) {
  WGPUDeviceDescriptor descriptor = WGPU_DEVICE_DESCRIPTOR_INIT;
  // The adapter's own limits: its storage-binding alignment and sizes rather than WebGPU's
  // defaults.
  descriptor.requiredLimits = &adapter_.limits;
  const std::array<WGPUFeatureName, 2> timestamp_features = {
      WGPUFeatureName_TimestampQuery,
      static_cast<WGPUFeatureName>(WGPUNativeFeature_TimestampQueryInsideEncoders)};
  if (adapter_.timestamps) {
    descriptor.requiredFeatureCount = timestamp_features.size();
    descriptor.requiredFeatures = timestamp_features.data();
  }
  descriptor.uncapturedErrorCallbackInfo.callback = on_error;
  descriptor.uncapturedErrorCallbackInfo.userdata1 = this;
  descriptor.deviceLostCallbackInfo.mode = WGPUCallbackMode_AllowSpontaneous;
  descriptor.deviceLostCallbackInfo.callback = on_lost;
  descriptor.deviceLostCallbackInfo.userdata1 = this;
  std::string error;
  WGPURequestDeviceCallbackInfo callback = WGPU_REQUEST_DEVICE_CALLBACK_INFO_INIT;
  callback.mode = WGPUCallbackMode_AllowSpontaneous;
  callback.callback = on_device;
  callback.userdata1 = &device_;
  callback.userdata2 = &error;
  wgpuAdapterRequestDevice(adapter_.handle, &descriptor, callback);
  // wgpu-native answers a device request before it returns.
  if (device_ == nullptr)
    throw ExecutionError("[" + name_ + "] wgpuAdapterRequestDevice failed on " + adapter_.name +
                         ": " + (error.empty() ? "no device and no reason" : error));
  queue_ = wgpuDeviceGetQueue(device_);
}

Context::~Context() {
  if (queue_ != nullptr) wgpuQueueRelease(queue_);
  if (device_ != nullptr) wgpuDeviceRelease(device_);
}

void Context::wait() {
  wgpuDevicePoll(device_, true, nullptr);
  check_usable();
}

void Context::check_usable() const {
  if (!poisoned()) return;
  const std::lock_guard lock(mutex_);
  throw ExecutionError("[" + name_ + "] the device failed and is unusable: " + error_);
}

void Context::poison(const std::string& why) {
  const std::lock_guard lock(mutex_);
  if (!poisoned()) error_ = why.empty() ? "an error without a message" : why;
  poisoned_.store(true, std::memory_order_release);
}

}  // namespace ember::wgpu
