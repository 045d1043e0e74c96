// The wgpu backend's registration (backends/registration.h): one device per adapter wgpu-native
// offers, named by its DeviceKind; none where there is none. Device() picks only its GPUs.
// Device::webgpu is the same backend (webgpu_registration, where EMBER_BACKEND_WEBGPU is on): on
// Linux, the WebGPU API is the one wgpu-native implements (docs/backends/wgpu.md).
#include <string>
#include <variant>

#include "backends/registration.h"
#include "backends/wgpu/wgpu_backend.h"
#include "backends/wgpu/wgpu_context.h"
#include "ember/error.h"

namespace ember::backend {
namespace {

std::unique_ptr<Backend> create_wgpu(const DispatchDevice& d) {
  const std::string name = device_name(d);
  const WgpuDevice& device = std::get<WgpuDevice>(d);
  const wgpu::Adapter* adapter = wgpu::select(device.kind);
  if (adapter == nullptr) {
    std::string found;
    for (const wgpu::Adapter& a : wgpu::adapters())
      found += (found.empty() ? "" : ", ") + device_name(WgpuDevice{device.api, a.kind}) + " (" +
               a.name + ")";
    throw ExecutionError("[" + name + "] no such WebGPU adapter: wgpu-native offers " +
                         (found.empty() ? "none (no Vulkan driver is installed: Debian's "
                                          "mesa-vulkan-drivers has lavapipe, a CPU one)"
                                        : found));
  }
  return wgpu::make_wgpu_backend(*adapter, name);
}

std::vector<DispatchDevice> devices_of(WgpuDevice::Api api, bool gpus_only) {
  std::vector<DispatchDevice> devices;
  for (const wgpu::Adapter& adapter : wgpu::adapters())
    if (!gpus_only || adapter.kind.type() != DeviceKind::Type::Cpu)
      devices.emplace_back(WgpuDevice{api, adapter.kind});
  return devices;
}

template <WgpuDevice::Api api>
std::vector<DispatchDevice> enumerate_adapters() {
  return devices_of(api, false);
}

/// The GPUs: Device() does not pick an adapter that runs on the CPU (lavapipe), slower than the
/// cpu backend at everything.
template <WgpuDevice::Api api>
std::vector<DispatchDevice> enumerate_gpus() {
  return devices_of(api, true);
}

}  // namespace

Registration wgpu_registration() {
  Registration registration{DeviceType::Kind::Wgpu, create_wgpu,
                            enumerate_adapters<WgpuDevice::Api::Wgpu>};
  registration.enumerate_default = enumerate_gpus<WgpuDevice::Api::Wgpu>;
  return registration;
}

Registration webgpu_registration() {
  Registration registration{DeviceType::Kind::WebGpu, create_wgpu,
                            enumerate_adapters<WgpuDevice::Api::WebGpu>};
  registration.enumerate_default = enumerate_gpus<WgpuDevice::Api::WebGpu>;
  return registration;
}

}  // namespace ember::backend
