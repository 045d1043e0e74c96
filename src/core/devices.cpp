// Enumeration: device types and filters, the Devices collection, remote hosts.
#include "ember/devices.h"

#include <algorithm>
#include <utility>

#include "backends/registry.h"
#include "core/device_name.h"
#include "ember/error.h"

namespace ember {

const DeviceType DeviceType::Cpu{Kind::Cpu, RemoteHost{}};
const DeviceType DeviceType::Cuda{Kind::Cuda, RemoteHost{}};
const DeviceType DeviceType::Rocm{Kind::Rocm, RemoteHost{}};
const DeviceType DeviceType::Wgpu{Kind::Wgpu, RemoteHost{}};
const DeviceType DeviceType::Vulkan{Kind::Vulkan, RemoteHost{}};
const DeviceType DeviceType::Metal{Kind::Metal, RemoteHost{}};
const DeviceType DeviceType::WebGpu{Kind::WebGpu, RemoteHost{}};
const DeviceType DeviceType::Flex{Kind::Flex, RemoteHost{}};
const DeviceType DeviceType::NdArray{Kind::NdArray, RemoteHost{}};
const DeviceType DeviceType::LibTorch{Kind::LibTorch, RemoteHost{}};
const DeviceType DeviceType::Capture{Kind::Capture, RemoteHost{}};

DeviceType DeviceType::remote(RemoteHost host) {
  return DeviceType(Kind::Remote, std::move(host));
}

DeviceFilter DeviceFilter::all() {
  // Note: not Capture. It computes nothing (its tensors are symbolic), so code that runs work on
  // every device it finds (the conformance suite, `ember serve`, `ember devices`) must not get it;
  // Device::enumerate(DeviceType::Capture) names it.
  return DeviceType::Cpu | DeviceType::Cuda | DeviceType::Rocm | DeviceType::Wgpu |
         DeviceType::Vulkan | DeviceType::Metal | DeviceType::WebGpu | DeviceType::Flex |
         DeviceType::NdArray | DeviceType::LibTorch;
}

RemoteHost RemoteHost::tcp(std::string address) {
  detail::check_remote_address(address, "RemoteHost::tcp");
  RemoteHost host;
  host.address_ = std::move(address);
  return host;
}

RemoteHost RemoteHost::with_tls(std::string trusted_certificates_file) const {
  RemoteHost host = *this;
  host.access_.tls_trusted = std::move(trusted_certificates_file);
  return host;
}

RemoteHost RemoteHost::with_credential(std::string token) const {
  RemoteHost host = *this;
  host.access_.credential = std::move(token);
  return host;
}

Devices RemoteHost::devices() const {
  std::vector<Device> devices;
  for (DispatchDevice& d : backend::enumerate_host(*this))
    devices.emplace_back(std::move(d));
  return Devices(std::move(devices));
}

Devices Devices::autodiff() const {
  std::vector<Device> devices;
  devices.reserve(devices_.size());
  for (const Device& d : devices_)
    devices.push_back(d.autodiff());
  return Devices(std::move(devices));
}

void Devices::configure(const DeviceConfig& config) {
  for (Device& d : devices_)
    d.configure(config);
}

namespace {

/// Appends the devices not already listed (a filter may name a type twice).
void append_new(std::vector<Device>& out, const Devices& found) {
  for (const Device& d : found) {
    if (std::find(out.begin(), out.end(), d) == out.end()) out.push_back(d);
  }
}

Devices local_devices(DeviceType::Kind kind) {
  std::vector<Device> devices;
  for (DispatchDevice& d : backend::enumerate(kind))
    devices.emplace_back(std::move(d));
  return Devices(std::move(devices));
}

}  // namespace

Devices Device::enumerate(const DeviceFilter& filter) {
  std::vector<Device> devices;
  for (const DeviceType& type : filter.types()) {
    const bool remote = type.kind() == DeviceType::Kind::Remote;
    append_new(devices, remote ? type.host().devices() : local_devices(type.kind()));
  }
  return Devices(std::move(devices));
}

}  // namespace ember
