// The backend registry: one line per backend of DESIGN.md §3 in kBackends (its name, its CMake
// option, whether ember has its source), and the registrations of the compiled-in ones
// (registration.h), which each backend defines in its own folder: nothing here includes a
// backend's headers.
#include "backends/registry.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <string_view>

#include "backends/registration.h"
#include "core/device_name.h"
#include "ember/error.h"

namespace ember::backend {

namespace {

using Kind = DeviceType::Kind;

struct BackendEntry {
  Kind kind;
  std::string_view name;
  std::string_view option;
  /// Empty: ember has this backend's source (its option may be turned on). Else why it has none,
  /// and what to use instead, for the ConfigError of its factories.
  std::string_view missing;
};

constexpr std::string_view kNoRocm =
    "ember has no ROCm backend yet: it would be a HIP build of the cuda backend's kernels "
    "(docs/backends/metal-rocm.md); AMD GPUs run through Device::vulkan meanwhile";
constexpr std::string_view kNoMetal =
    "Metal is Apple's API and ember has no Metal backend yet (an MSL emitter, "
    "docs/backends/metal-rocm.md); on Linux, GPUs run through Device::vulkan or Device::cuda";

// clang-format off
constexpr BackendEntry kBackends[] = {
    {Kind::NdArray,  "ndarray",  "EMBER_BACKEND_NDARRAY",  ""},
    {Kind::Flex,     "flex",     "EMBER_BACKEND_FLEX",     ""},
    {Kind::Cpu,      "cpu",      "EMBER_BACKEND_CPU",      ""},
    {Kind::Cuda,     "cuda",     "EMBER_BACKEND_CUDA",     ""},
    {Kind::Rocm,     "rocm",     "EMBER_BACKEND_ROCM",     kNoRocm},
    {Kind::Vulkan,   "vulkan",   "EMBER_BACKEND_VULKAN",   ""},
    {Kind::Wgpu,     "wgpu",     "EMBER_BACKEND_WGPU",     ""},
    {Kind::Metal,    "metal",    "EMBER_BACKEND_METAL",    kNoMetal},
    {Kind::WebGpu,   "webgpu",   "EMBER_BACKEND_WEBGPU",   ""},
    {Kind::LibTorch, "libtorch", "EMBER_BACKEND_LIBTORCH", ""},
    {Kind::Remote,   "remote",   "EMBER_BACKEND_REMOTE",   ""},
    {Kind::Capture,  "capture",  "EMBER_BACKEND_CAPTURE",  ""},
};
// clang-format on

/// The order Device() tries backends in (the spec's).
constexpr Kind kDefaultOrder[] = {Kind::Cuda,   Kind::Metal,  Kind::Rocm,   Kind::Vulkan,
                                  Kind::WebGpu, Kind::Wgpu,   Kind::Cpu,    Kind::LibTorch,
                                  Kind::Flex,   Kind::Remote, Kind::NdArray};

constexpr bool has_one_line_per_kind() {
  for (int k = 0; k <= static_cast<int>(Kind::Remote); ++k) {
    const auto lines = std::ranges::count_if(
        kBackends, [&](const BackendEntry& e) { return static_cast<int>(e.kind) == k; });
    if (lines != 1) return false;
  }
  return true;
}
static_assert(has_one_line_per_kind(), "every DeviceType::Kind needs exactly one line");

const BackendEntry& entry_of(Kind kind) {
  return *std::find_if(std::begin(kBackends), std::end(kBackends),
                       [&](const BackendEntry& e) { return e.kind == kind; });
}

/// The registration of the backend of this type; nullptr when it is not compiled in.
const Registration* registration_of(Kind kind) {
  const std::span<const Registration> compiled = compiled_backends();
  const auto found = std::ranges::find(compiled, kind, &Registration::kind);
  return found != compiled.end() ? &*found : nullptr;
}

/// The compiled-in backend that runs on ember's CPU thread pool; nullptr when none is.
const Registration* thread_pool_owner() {
  const std::span<const Registration> compiled = compiled_backends();
  const auto found =
      std::ranges::find_if(compiled, [](const Registration& r) { return r.threads != nullptr; });
  return found != compiled.end() ? &*found : nullptr;
}

Kind wgpu_kind(WgpuDevice::Api api) {
  switch (api) {
    case WgpuDevice::Api::Vulkan:
      return Kind::Vulkan;
    case WgpuDevice::Api::Metal:
      return Kind::Metal;
    case WgpuDevice::Api::WebGpu:
      return Kind::WebGpu;
    case WgpuDevice::Api::Wgpu:
      break;
  }
  return Kind::Wgpu;
}

// The backend type serving each descriptor.
Kind kind_of_device(const CpuDevice&) {
  return Kind::Cpu;
}
Kind kind_of_device(const CudaDevice&) {
  return Kind::Cuda;
}
Kind kind_of_device(const RocmDevice&) {
  return Kind::Rocm;
}
Kind kind_of_device(const WgpuDevice& d) {
  return wgpu_kind(d.api);
}
Kind kind_of_device(const FlexDevice&) {
  return Kind::Flex;
}
Kind kind_of_device(const NdArrayDevice&) {
  return Kind::NdArray;
}
Kind kind_of_device(const LibTorchDevice&) {
  return Kind::LibTorch;
}
Kind kind_of_device(const RemoteDevice&) {
  return Kind::Remote;
}
Kind kind_of_device(const CaptureDevice&) {
  return Kind::Capture;
}

Kind kind_of(const DispatchDevice& d) {
  return std::visit([](const auto& device) { return kind_of_device(device); }, d);
}

/// The backend's first device Device() may pick, if it is compiled in and finds one.
std::optional<DispatchDevice> first_device(Kind kind) {
  const Registration* registration = registration_of(kind);
  if (registration == nullptr) return std::nullopt;
  std::vector<DispatchDevice> devices = registration->enumerate_default != nullptr
                                            ? registration->enumerate_default()
                                            : registration->enumerate();
  if (devices.empty()) return std::nullopt;
  return std::move(devices.front());
}

[[noreturn]] void fail_no_device() {
  const bool any_compiled = !compiled_backends().empty();
  std::string message = "[Device::default_device] ";
  message += any_compiled ? "the compiled-in backends found no device; configure with one of"
                          : "no backend is compiled in; configure with one of";
  for (Kind kind : kDefaultOrder) {
    if (entry_of(kind).missing.empty())
      message += " -D" + std::string(entry_of(kind).option) + "=ON";
  }
  throw ConfigError(message);
}

}  // namespace

bool is_compiled(Kind kind) {
  return registration_of(kind) != nullptr;
}

void require_compiled(const DispatchDevice& d, const char* factory) {
  if (const Registration* registration = registration_of(kind_of(d))) {
    if (registration->require_buildable != nullptr) registration->require_buildable(d, factory);
    return;
  }
  const BackendEntry& entry = entry_of(kind_of(d));
  if (!entry.missing.empty()) {
    throw ConfigError("[" + std::string(factory) + "] " + std::string(entry.missing) +
                      " (its option " + std::string(entry.option) + " cannot be turned on)");
  }
  throw ConfigError("[" + std::string(factory) + "] the " + std::string(entry.name) +
                    " backend is not compiled in; configure with -D" + std::string(entry.option) +
                    "=ON");
}

std::unique_ptr<Backend> create(const DispatchDevice& d) {
  const std::string name = device_name(d);
  require_compiled(d, name.c_str());
  return registration_of(kind_of(d))->create(d);
}

std::vector<DispatchDevice> enumerate(Kind kind) {
  const Registration* registration = registration_of(kind);
  if (registration == nullptr) return {};
  return registration->enumerate();
}

std::vector<DispatchDevice> enumerate_host(const RemoteHost& host) {
  require_compiled(RemoteDevice{host.address(), 0, host.access()}, "RemoteHost::devices");
  return registration_of(Kind::Remote)->enumerate_host(host);
}

DispatchDevice default_device() {
  if (const char* forced = std::getenv("EMBER_DEVICE"); forced != nullptr && *forced != '\0') {
    DispatchDevice d = detail::parse_device_name(forced, "EMBER_DEVICE");
    require_compiled(d, "EMBER_DEVICE");
    return d;
  }
  for (Kind kind : kDefaultOrder) {
    if (auto device = first_device(kind)) return *std::move(device);
  }
  fail_no_device();
}

int cpu_threads() {
  const Registration* owner = thread_pool_owner();
  return owner != nullptr ? owner->threads() : 1;
}

void set_cpu_threads(int threads) {
  if (const Registration* owner = thread_pool_owner()) owner->set_threads(threads);
}

}  // namespace ember::backend
