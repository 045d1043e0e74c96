// Device: construction, factories, autodiff context, and forwarding to the physical device's
// context and backend. Profile windows live in device_profile.cpp.
#include "ember/device.h"

#include <sstream>
#include <string>
#include <utility>

#include "backends/registry.h"
#include "core/device_context.h"
#include "core/device_name.h"
#include "ember/error.h"

namespace ember {

namespace {

/// The device d, after checking that its backend is compiled in.
Device compiled_device(DispatchDevice d, const char* factory) {
  backend::require_compiled(d, factory);
  return Device(std::move(d));
}

std::shared_ptr<detail::DeviceContext> context_of(const Device& d) {
  return detail::DeviceContext::of(d.as_dispatch());
}

}  // namespace

Device::Device() : dispatch_(backend::default_device()) {}

Device::Device(DispatchDevice device) : dispatch_(std::move(device)) {}

Device Device::default_device() {
  return Device();
}

Device Device::from_name(std::string_view name) {
  constexpr const char* kOp = "Device::from_name";
  return compiled_device(detail::parse_device_name(name, kOp), kOp);
}

Device Device::cpu() {
  return compiled_device(CpuDevice{}, "Device::cpu");
}
Device Device::cuda(DeviceIndex index) {
  return compiled_device(CudaDevice{index.value()}, "Device::cuda");
}
Device Device::rocm(DeviceIndex index) {
  return compiled_device(RocmDevice{index.value()}, "Device::rocm");
}
Device Device::libtorch_cuda(DeviceIndex index) {
  return compiled_device(LibTorchDevice{LibTorchDevice::Target::Cuda, index.value()},
                         "Device::libtorch_cuda");
}
Device Device::wgpu(DeviceKind kind) {
  return compiled_device(WgpuDevice{WgpuDevice::Api::Wgpu, kind}, "Device::wgpu");
}
Device Device::vulkan(DeviceKind kind) {
  return compiled_device(WgpuDevice{WgpuDevice::Api::Vulkan, kind}, "Device::vulkan");
}
Device Device::metal(DeviceKind kind) {
  return compiled_device(WgpuDevice{WgpuDevice::Api::Metal, kind}, "Device::metal");
}
Device Device::webgpu(DeviceKind kind) {
  return compiled_device(WgpuDevice{WgpuDevice::Api::WebGpu, kind}, "Device::webgpu");
}
Device Device::flex() {
  return compiled_device(FlexDevice{}, "Device::flex");
}
Device Device::ndarray() {
  return compiled_device(NdArrayDevice{}, "Device::ndarray");
}
Device Device::libtorch() {
  return compiled_device(LibTorchDevice{LibTorchDevice::Target::Cpu}, "Device::libtorch");
}
Device Device::libtorch_mps() {
  return compiled_device(LibTorchDevice{LibTorchDevice::Target::Mps}, "Device::libtorch_mps");
}
Device Device::libtorch_vulkan() {
  return compiled_device(LibTorchDevice{LibTorchDevice::Target::Vulkan}, "Device::libtorch_vulkan");
}
Device Device::capture() {
  return compiled_device(CaptureDevice{}, "Device::capture");
}
Device Device::remote(const RemoteHost& host, DeviceIndex index) {
  return compiled_device(RemoteDevice{host.address(), index.value(), host.access()},
                         "Device::remote");
}

Device Device::autodiff() const {
  if (autodiff_) return *this;
  Device d = *this;
  d.autodiff_ = true;
  d.checkpointing_ = GradientCheckpointingStrategy::Disabled;
  return d;
}

Device Device::without_autodiff() const {
  Device d = *this;
  d.autodiff_ = false;
  d.checkpointing_ = GradientCheckpointingStrategy::Disabled;
  return d;
}

Device Device::gradient_checkpointing() const {
  if (!autodiff_) {
    throw InvalidArgument("[gradient_checkpointing] device " + name() +
                          " has autodiff off; call autodiff() first");
  }
  Device d = *this;
  d.checkpointing_ = GradientCheckpointingStrategy::Balanced;
  return d;
}

std::optional<GradientCheckpointingStrategy> Device::gradient_checkpointing_strategy() const {
  if (!autodiff_) return std::nullopt;
  return checkpointing_;
}

Device Device::autocast(FloatDType dtype) const {
  if (dtype != FloatDType::BF16 && dtype != FloatDType::F16) {
    std::ostringstream message;
    message << "[autocast] dtype " << dtype
            << " is not a reduced precision: autocast takes bf16 or f16";
    throw InvalidArgument(message.str());
  }
  if (!supports_dtype(dtype)) {
    std::ostringstream message;
    message << "[autocast] device " << name() << " does not support " << dtype;
    throw InvalidArgument(message.str());
  }
  Device d = *this;
  d.autocast_ = dtype;
  return d;
}

Device Device::without_autocast() const {
  Device d = *this;
  d.autocast_.reset();
  return d;
}

void Device::sync() const {
  context_of(*this)->sync();
}

void Device::flush() const {
  context_of(*this)->flush();
}

void Device::seed(uint64_t seed) const {
  context_of(*this)->seed(seed);
}

bool Device::supports_dtype(DTypeArg dtype) const {
  return context_of(*this)->backend().supports_dtype(dtype);
}

void Device::memory_cleanup() const {
  context_of(*this)->backend().memory_cleanup();
}

std::optional<std::vector<SlicedPoolReport>> Device::memory_pool_report() const {
  return context_of(*this)->backend().memory_pool_report();
}

std::optional<MemoryPoolUsage> Device::memory_pool_usage() const {
  return context_of(*this)->backend().memory_pool_usage();
}

void Device::begin_persistent_allocations() const {
  context_of(*this)->backend().begin_persistent_allocations();
}

void Device::end_persistent_allocations() const noexcept {
  context_of(*this)->backend().end_persistent_allocations();
}

void Device::staging(std::span<TensorData*> data) const {
  context_of(*this)->backend().staging(data);
}

DeviceSettings Device::settings() const {
  return context_of(*this)->settings();
}

void Device::configure(const DeviceConfig& config) {
  context_of(*this)->configure(config);
}

std::ostream& operator<<(std::ostream& os, const Device& d) {
  if (d.is_autodiff()) return os << "autodiff(" << d.without_autodiff() << ")";
  if (const std::optional<FloatDType> dtype = d.autocast_dtype())
    return os << "autocast(" << *dtype << ", " << d.name() << ")";
  return os << d.name();
}

}  // namespace ember
