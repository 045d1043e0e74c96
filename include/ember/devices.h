// Device enumeration: DeviceType filters, the Devices collection, and remote hosts.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "ember/device.h"
#include "ember/dispatch_device.h"

namespace ember {

/// An `ember serve` endpoint.
class RemoteHost {
 public:
  /// "host:port"; InvalidArgument when the port is missing or not a number.
  static RemoteHost tcp(std::string address);
  /// The same host, authenticating with token.
  RemoteHost with_credential(std::string token) const;
  /// The same host over TLS, trusting the certificates of a PEM file (the server's own, for a
  /// self-signed one, or the authority that signed it).
  RemoteHost with_tls(std::string trusted_certificates_file) const;
  const std::string& address() const { return address_; }
  const std::string& credential() const { return access_.credential; }
  const RemoteAccess& access() const { return access_; }
  /// Every device the host serves; ExecutionError when unreachable, ConfigError when the remote
  /// backend is not compiled in.
  Devices devices() const;
  friend bool operator==(const RemoteHost& a, const RemoteHost& b) {
    return a.address_ == b.address_;
  }

 private:
  std::string address_;
  RemoteAccess access_;
};

/// A backend family to enumerate. DeviceType::Cuda | DeviceType::remote(host) builds a filter.
class DeviceType {
 public:
  enum class Kind : uint8_t {
    Cpu,
    Cuda,
    Rocm,
    Wgpu,
    Vulkan,
    Metal,
    WebGpu,
    Flex,
    NdArray,
    LibTorch,
    Capture,
    Remote
  };
  static const DeviceType Cpu, Cuda, Rocm, Wgpu, Vulkan, Metal, WebGpu, Flex, NdArray, LibTorch,
      Capture;
  static DeviceType remote(RemoteHost host);
  Kind kind() const { return kind_; }
  /// The host of a Remote type (empty address otherwise).
  const RemoteHost& host() const { return host_; }

 private:
  DeviceType(Kind k, RemoteHost host) : kind_(k), host_(std::move(host)) {}
  Kind kind_;
  RemoteHost host_;
};

/// A union of device types.
class DeviceFilter {
 public:
  DeviceFilter(DeviceType t) : types_{std::move(t)} {}  // NOLINT: implicit on purpose
  /// Every local backend compiled in that computes: no remote hosts, and not the capture device
  /// (symbolic tensors, ember/graph.h), which enumerate lists only when its filter names
  /// DeviceType::Capture.
  static DeviceFilter all();
  const std::vector<DeviceType>& types() const { return types_; }
  friend DeviceFilter operator|(DeviceFilter a, const DeviceFilter& b) {
    a.types_.insert(a.types_.end(), b.types_.begin(), b.types_.end());
    return a;
  }

 private:
  DeviceFilter() = default;
  std::vector<DeviceType> types_;
};

/// DeviceType::Cuda | DeviceType::NdArray (the friend above needs a DeviceFilter operand to be
/// found, so two DeviceTypes need this overload).
inline DeviceFilter operator|(const DeviceType& a, const DeviceType& b) {
  return DeviceFilter(a) | DeviceFilter(b);
}

/// An ordered collection of devices.
class Devices {
 public:
  Devices() = default;
  explicit Devices(std::vector<Device> devices) : devices_(std::move(devices)) {}
  auto begin() const { return devices_.begin(); }
  auto end() const { return devices_.end(); }
  std::size_t size() const { return devices_.size(); }
  bool empty() const { return devices_.empty(); }
  const Device& operator[](std::size_t i) const { return devices_.at(i); }
  /// Every device with autodiff on.
  Devices autodiff() const;
  /// Configures every device; the first failure is thrown.
  void configure(const DeviceConfig& config);

 private:
  std::vector<Device> devices_;
};

}  // namespace ember
