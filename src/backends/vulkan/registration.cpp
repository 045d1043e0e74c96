// The vulkan backend's registration (backends/registration.h): one device per physical device the
// Vulkan loader's drivers report, named by its DeviceKind; none where there is no driver. Device()
// picks only its GPUs.
#include <string>
#include <variant>

#include "backends/registration.h"
#include "backends/vulkan/vulkan_backend.h"
#include "backends/vulkan/vulkan_context.h"
#include "ember/error.h"

namespace ember::backend {
namespace {

std::unique_ptr<Backend> create_vulkan(const DispatchDevice& d) {
  const std::string name = device_name(d);
  const vulkan::PhysicalDevice* physical = vulkan::select(std::get<WgpuDevice>(d).kind);
  if (physical == nullptr) {
    std::string found;
    for (const vulkan::PhysicalDevice& device : vulkan::physical_devices())
      found += (found.empty() ? "" : ", ") +
               device_name(WgpuDevice{WgpuDevice::Api::Vulkan, device.kind}) + " (" + device.name +
               ")";
    throw ExecutionError("[" + name + "] no such Vulkan device: the drivers offer " +
                         (found.empty() ? "none (no Vulkan driver is installed: Debian's "
                                          "mesa-vulkan-drivers has lavapipe, a CPU one)"
                                        : found));
  }
  return vulkan::make_vulkan_backend(*physical, name);
}

std::vector<DispatchDevice> enumerate_vulkan() {
  std::vector<DispatchDevice> devices;
  for (const vulkan::PhysicalDevice& device : vulkan::physical_devices())
    devices.emplace_back(WgpuDevice{WgpuDevice::Api::Vulkan, device.kind});
  return devices;
}

/// The GPUs: Device() does not pick a device that runs on the CPU (lavapipe), slower than the cpu
/// backend at everything.
std::vector<DispatchDevice> enumerate_vulkan_gpus() {
  std::vector<DispatchDevice> devices;
  for (const vulkan::PhysicalDevice& device : vulkan::physical_devices())
    if (device.kind.type() != DeviceKind::Type::Cpu)
      devices.emplace_back(WgpuDevice{WgpuDevice::Api::Vulkan, device.kind});
  return devices;
}

}  // namespace

Registration vulkan_registration() {
  Registration registration{DeviceType::Kind::Vulkan, create_vulkan, enumerate_vulkan};
  registration.enumerate_default = enumerate_vulkan_gpus;
  return registration;
}

}  // namespace ember::backend
