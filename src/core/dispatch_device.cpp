// Device descriptors and their names: formatting (device_name, backend_name) and parsing
// (detail::parse_device_name) live together so the two stay each other's inverse.
#include "ember/dispatch_device.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "core/device_name.h"
#include "ember/error.h"

namespace ember {

const DeviceIndex DeviceIndex::Default{DeviceIndex::DefaultTag{}};

DeviceIndex::DeviceIndex(int64_t i) : index_(i) {
  constexpr int64_t kMax = std::numeric_limits<uint32_t>::max();
  if (i < 0 || i > kMax) {
    throw InvalidArgument("[DeviceIndex] index " + std::to_string(i) + " is outside 0.." +
                          std::to_string(kMax));
  }
}

namespace {

using namespace std::string_literals;

/// One enumerator's name in a name table.
template <typename Key>
struct Named {
  Key key;
  std::string_view name;
};

constexpr Named<WgpuDevice::Api> kWgpuApis[] = {{WgpuDevice::Api::Wgpu, "wgpu"},
                                                {WgpuDevice::Api::Vulkan, "vulkan"},
                                                {WgpuDevice::Api::Metal, "metal"},
                                                {WgpuDevice::Api::WebGpu, "webgpu"}};

constexpr Named<LibTorchDevice::Target> kLibTorchTargets[] = {
    {LibTorchDevice::Target::Cpu, "libtorch"},
    {LibTorchDevice::Target::Cuda, "libtorch_cuda"},
    {LibTorchDevice::Target::Mps, "libtorch_mps"},
    {LibTorchDevice::Target::Vulkan, "libtorch_vulkan"}};

/// The GPU adapter kinds, which take an ordinal ("wgpu:integrated:1").
struct GpuKindName {
  DeviceKind::Type type;
  std::string_view name;
  DeviceKind (*make)(uint32_t);
};
const GpuKindName kGpuKinds[] = {
    {DeviceKind::Type::DiscreteGpu, "discrete", DeviceKind::discrete_gpu},
    {DeviceKind::Type::IntegratedGpu, "integrated", DeviceKind::integrated_gpu},
    {DeviceKind::Type::VirtualGpu, "virtual", DeviceKind::virtual_gpu}};
constexpr std::string_view kCpuKindName = "cpu";

constexpr std::string_view kRemoteScheme = "remote://";

/// The name of key in table, which lists every enumerator of Key.
template <typename Key, std::size_t N>
std::string_view name_in(const Named<Key> (&table)[N], Key key) {
  return std::find_if(std::begin(table), std::end(table),
                      [&](const Named<Key>& entry) { return entry.key == key; })
      ->name;
}

std::string kind_suffix(const DeviceKind& kind) {
  if (kind.type() == DeviceKind::Type::Cpu) return ":"s + std::string(kCpuKindName);
  for (const auto& entry : kGpuKinds) {
    if (entry.type == kind.type()) {
      return ":"s + std::string(entry.name) + ":" + std::to_string(kind.index());
    }
  }
  return "";  // DeviceKind::Type::Default
}

// ---- formatting: one overload per descriptor --------------------------------------------------

std::string name_of(const CpuDevice&) {
  return "cpu";
}
std::string name_of(const FlexDevice&) {
  return "flex";
}
std::string name_of(const NdArrayDevice&) {
  return "ndarray";
}
std::string name_of(const CaptureDevice&) {
  return "capture";
}
std::string name_of(const CudaDevice& d) {
  return "cuda:" + std::to_string(d.index);
}
std::string name_of(const RocmDevice& d) {
  return "rocm:" + std::to_string(d.index);
}
std::string name_of(const WgpuDevice& d) {
  return std::string(name_in(kWgpuApis, d.api)) + kind_suffix(d.kind);
}
std::string name_of(const LibTorchDevice& d) {
  // Built in one expression: GCC 12 at -O3 warns (-Wrestrict, a false positive) on `name += ":"
  // + ...`.
  const std::string base(name_in(kLibTorchTargets, d.target));
  return d.target == LibTorchDevice::Target::Cuda ? base + ":" + std::to_string(d.index) : base;
}
std::string name_of(const RemoteDevice& d) {
  return std::string(kRemoteScheme) + d.address + "/" + std::to_string(d.index);
}

std::string backend_of(const WgpuDevice& d) {
  return std::string(name_in(kWgpuApis, d.api));
}
std::string backend_of(const CudaDevice&) {
  return "cuda";
}
std::string backend_of(const RocmDevice&) {
  return "rocm";
}
std::string backend_of(const LibTorchDevice&) {
  return "libtorch";
}
std::string backend_of(const RemoteDevice&) {
  return "remote";
}
/// Descriptors without parameters are named after their backend.
template <typename T>
std::string backend_of(const T& d) {
  return name_of(d);
}

// ---- parsing ----------------------------------------------------------------------------------

[[noreturn]] void fail_name(std::string_view name, std::string_view op) {
  throw InvalidArgument(
      "[" + std::string(op) + "] unknown device name '" + std::string(name) +
      "': expected cpu, flex, ndarray, capture, cuda[:i], rocm[:i], "
      "wgpu|vulkan|metal|webgpu[:discrete|:integrated|:virtual][:i] or [:cpu], libtorch, "
      "libtorch_cuda[:i], libtorch_mps, libtorch_vulkan or remote://HOST:PORT[/i]");
}

/// A decimal uint32 with nothing around it (no sign, no spaces).
std::optional<uint32_t> parse_index(std::string_view s) {
  uint32_t value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
  return value;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  for (std::size_t pos = s.find(sep); pos != std::string_view::npos; pos = s.find(sep)) {
    parts.push_back(s.substr(0, pos));
    s.remove_prefix(pos + 1);
  }
  parts.push_back(s);
  return parts;
}

/// The suffix of a wgpu-family name after the api: "", "N", "cpu", "KIND" or "KIND:N".
std::optional<DeviceKind> parse_kind(std::span<const std::string_view> parts) {
  if (parts.empty()) return DeviceKind::default_device();
  if (parts.size() == 1 && parts[0] == kCpuKindName) return DeviceKind::cpu();
  if (parts.size() == 1) {
    if (const auto i = parse_index(parts[0])) return DeviceKind::discrete_gpu(*i);
  }
  if (parts.size() > 2) return std::nullopt;
  for (const auto& entry : kGpuKinds) {
    if (entry.name != parts[0]) continue;
    if (parts.size() == 1) return entry.make(0);
    if (const auto i = parse_index(parts[1])) return entry.make(*i);
  }
  return std::nullopt;
}

constexpr std::string_view kAddressRule = "' is not HOST:PORT with a port in 1..65535";

/// "HOST:PORT" with a non-empty host and a port in 1..65535.
bool is_remote_address(std::string_view address) {
  const std::size_t colon = address.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  const auto port = parse_index(address.substr(colon + 1));
  return port && *port >= 1 && *port <= 65535;
}

/// "HOST:PORT[/i]" after the remote:// scheme.
DispatchDevice parse_remote(std::string_view rest, std::string_view name, std::string_view op) {
  const std::size_t slash = rest.find('/');
  const std::string_view address = rest.substr(0, slash);
  if (!is_remote_address(address)) {
    throw InvalidArgument("[" + std::string(op) + "] device name '" + std::string(name) +
                          "': address '" + std::string(address) + std::string(kAddressRule));
  }
  if (slash == std::string_view::npos) return RemoteDevice{std::string(address), 0, {}};
  const auto index = parse_index(rest.substr(slash + 1));
  if (!index) fail_name(name, op);
  return RemoteDevice{std::string(address), *index, {}};
}

/// Names without parameters, and those taking an optional ":i".
std::optional<DispatchDevice> parse_local(std::span<const std::string_view> parts) {
  const std::string_view head = parts[0];
  const auto args = parts.subspan(1);
  for (const DispatchDevice& plain :
       {DispatchDevice(CpuDevice{}), DispatchDevice(FlexDevice{}), DispatchDevice(NdArrayDevice{}),
        DispatchDevice(CaptureDevice{}),
        DispatchDevice(LibTorchDevice{LibTorchDevice::Target::Cpu}),
        DispatchDevice(LibTorchDevice{LibTorchDevice::Target::Mps}),
        DispatchDevice(LibTorchDevice{LibTorchDevice::Target::Vulkan})}) {
    if (args.empty() && device_name(plain) == head) return plain;
  }
  for (const auto& entry : kWgpuApis) {
    if (entry.name != head) continue;
    if (const auto kind = parse_kind(args)) return WgpuDevice{entry.key, *kind};
    return std::nullopt;
  }
  if (args.size() > 1) return std::nullopt;
  const std::optional<uint32_t> index = args.empty() ? 0 : parse_index(args[0]);
  if (!index) return std::nullopt;
  if (head == "cuda") return CudaDevice{*index};
  if (head == "rocm") return RocmDevice{*index};
  if (head == name_in(kLibTorchTargets, LibTorchDevice::Target::Cuda)) {
    return LibTorchDevice{LibTorchDevice::Target::Cuda, *index};
  }
  return std::nullopt;
}

}  // namespace

std::string backend_name(const DispatchDevice& d) {
  return std::visit([](const auto& device) { return backend_of(device); }, d);
}

std::string device_name(const DispatchDevice& d) {
  return std::visit([](const auto& device) { return name_of(device); }, d);
}

// Note: device names are injective (parse_device_name inverts them), so hashing the name hashes
// exactly the hardware identity that operator== compares.
std::size_t hash_value(const DispatchDevice& d) {
  return std::hash<std::string>{}(device_name(d));
}

std::ostream& operator<<(std::ostream& os, const DispatchDevice& d) {
  return os << device_name(d);
}

namespace detail {

DispatchDevice parse_device_name(std::string_view name, std::string_view op) {
  if (name.starts_with(kRemoteScheme)) {
    return parse_remote(name.substr(kRemoteScheme.size()), name, op);
  }
  const std::vector<std::string_view> parts = split(name, ':');
  if (auto device = parse_local(parts)) return *std::move(device);
  fail_name(name, op);
}

void check_remote_address(std::string_view address, std::string_view op) {
  if (!is_remote_address(address)) {
    throw InvalidArgument("[" + std::string(op) + "] address '" + std::string(address) +
                          std::string(kAddressRule));
  }
}

}  // namespace detail

}  // namespace ember
