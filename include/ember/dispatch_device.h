// Backend device descriptors and DispatchDevice, the variant of all of them. A descriptor names
// one compute resource of one backend; Device wraps it with execution context (autodiff,
// checkpointing).
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <variant>

namespace ember {

/// Which device of a backend: the backend's default, or a hardware index.
class DeviceIndex {
 public:
  /// The backend's default device (index 0 unless the backend says otherwise).
  static const DeviceIndex Default;
  /// Hardware index i; InvalidArgument when i is negative.
  DeviceIndex(int64_t i);  // NOLINT: implicit, so Device::cuda(1) works
  bool is_default() const { return index_ < 0; }
  /// The hardware index (0 for Default).
  uint32_t value() const { return is_default() ? 0 : static_cast<uint32_t>(index_); }
  friend bool operator==(const DeviceIndex&, const DeviceIndex&) = default;

 private:
  struct DefaultTag {};
  explicit DeviceIndex(DefaultTag) : index_(-1) {}
  int64_t index_;
};

/// Selects a wgpu-family adapter by kind and ordinal.
class DeviceKind {
 public:
  enum class Type : uint8_t { DiscreteGpu, IntegratedGpu, VirtualGpu, Cpu, Default };
  static DeviceKind discrete_gpu(uint32_t i) { return {Type::DiscreteGpu, i}; }
  static DeviceKind integrated_gpu(uint32_t i) { return {Type::IntegratedGpu, i}; }
  static DeviceKind virtual_gpu(uint32_t i) { return {Type::VirtualGpu, i}; }
  static DeviceKind cpu() { return {Type::Cpu, 0}; }
  static DeviceKind default_device() { return {Type::Default, 0}; }
  Type type() const { return type_; }
  uint32_t index() const { return index_; }
  friend bool operator==(const DeviceKind&, const DeviceKind&) = default;

 private:
  DeviceKind(Type t, uint32_t i) : type_(t), index_(i) {}
  Type type_;
  uint32_t index_;
};

struct CpuDevice {
  friend bool operator==(const CpuDevice&, const CpuDevice&) = default;
};
struct FlexDevice {
  friend bool operator==(const FlexDevice&, const FlexDevice&) = default;
};
struct NdArrayDevice {
  friend bool operator==(const NdArrayDevice&, const NdArrayDevice&) = default;
};
struct CaptureDevice {
  friend bool operator==(const CaptureDevice&, const CaptureDevice&) = default;
};
struct CudaDevice {
  uint32_t index = 0;
  friend bool operator==(const CudaDevice&, const CudaDevice&) = default;
};
struct RocmDevice {
  uint32_t index = 0;
  friend bool operator==(const RocmDevice&, const RocmDevice&) = default;
};
/// Graphics-API backends share DeviceKind selection; `api` records which one.
struct WgpuDevice {
  enum class Api : uint8_t { Wgpu, Vulkan, Metal, WebGpu };
  Api api = Api::Wgpu;
  DeviceKind kind = DeviceKind::default_device();
  friend bool operator==(const WgpuDevice&, const WgpuDevice&) = default;
};
struct LibTorchDevice {
  enum class Target : uint8_t { Cpu, Cuda, Mps, Vulkan };
  Target target = Target::Cpu;
  uint32_t index = 0;
  friend bool operator==(const LibTorchDevice&, const LibTorchDevice&) = default;
};
/// How a client reaches an `ember serve`: the credential it presents (empty: none, or
/// EMBER_REMOTE_CREDENTIAL), and the certificates it trusts for TLS (a PEM file; empty: plain TCP,
/// or TLS with EMBER_REMOTE_TLS_TRUSTED's file).
struct RemoteAccess {
  std::string credential;
  std::string tls_trusted;
};
/// A device hosted by `ember serve` at address ("host:port"). How it is reached is not part of
/// its identity (two Devices of one address and index are the same device).
struct RemoteDevice {
  std::string address;
  uint32_t index = 0;
  RemoteAccess access;
  friend bool operator==(const RemoteDevice& a, const RemoteDevice& b) {
    return a.address == b.address && a.index == b.index;
  }
};

using DispatchDevice = std::variant<CpuDevice, CudaDevice, RocmDevice, WgpuDevice, FlexDevice,
                                    NdArrayDevice, LibTorchDevice, RemoteDevice, CaptureDevice>;

/// The backend that serves d: "cpu", "cuda", "rocm", "wgpu", "vulkan", "metal", "webgpu", "flex",
/// "ndarray", "libtorch", "remote", "capture".
std::string backend_name(const DispatchDevice& d);
/// The device name EMBER_DEVICE and `--device` take: "cuda:0", "ndarray", "remote://h:p/0".
std::string device_name(const DispatchDevice& d);
/// Hash by hardware identity (consistent with ==).
std::size_t hash_value(const DispatchDevice& d);

std::ostream& operator<<(std::ostream& os, const DispatchDevice& d);

}  // namespace ember
