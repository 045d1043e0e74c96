// The backend registry: one line per backend of DESIGN.md §3 in kBackends, plus a Hooks
// specialization for each backend that exists. EMBER_BACKEND_<NAME> (0 or 1) is defined for
// every backend by src/CMakeLists.txt.
#include "backends/registry.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/device_name.h"
#include "ember/error.h"

#if EMBER_BACKEND_NDARRAY
#include "backends/ndarray/ndarray_backend.h"
#endif
#if EMBER_BACKEND_FLEX
#include "backends/flex/flex_backend.h"
#include "backends/flex/thread_pool.h"
#endif
#if EMBER_BACKEND_CPU
#include "backends/cpu/cpu_backend.h"
#endif

namespace ember::backend {

namespace {

using Kind = DeviceType::Kind;

/// How to create a backend and list its devices. Enumerators must not throw: a backend that
/// cannot reach its hardware reports no devices.
struct Hooks {
  std::unique_ptr<Backend> (*create)(const DispatchDevice&) = nullptr;
  std::vector<DispatchDevice> (*enumerate)() = nullptr;
};

/// A backend without hooks here is not compiled in (or, like remote, lists no local devices).
template <Kind K>
constexpr Hooks kHooks{};

#if EMBER_BACKEND_NDARRAY
template <>
constexpr Hooks kHooks<Kind::NdArray>{
    [](const DispatchDevice&) -> std::unique_ptr<Backend> {
      return std::make_unique<ndarray::NdArrayBackend>();
    },
    []() -> std::vector<DispatchDevice> { return {NdArrayDevice{}}; }};
#endif
#if EMBER_BACKEND_FLEX
template <>
constexpr Hooks kHooks<Kind::Flex>{[](const DispatchDevice&) -> std::unique_ptr<Backend> {
                                     return std::make_unique<flex::FlexBackend>();
                                   },
                                   []() -> std::vector<DispatchDevice> { return {FlexDevice{}}; }};
#endif
#if EMBER_BACKEND_CPU
template <>
constexpr Hooks kHooks<Kind::Cpu>{
    [](const DispatchDevice&) -> std::unique_ptr<Backend> { return cpu::make_cpu_backend(); },
    []() -> std::vector<DispatchDevice> { return {CpuDevice{}}; }};
#endif

struct BackendEntry {
  Kind kind;
  std::string_view name;
  std::string_view option;
  bool implemented;  // ember has this backend's source (its option may be turned on)
  bool compiled;
  Hooks hooks;
};

// clang-format off
constexpr BackendEntry kBackends[] = {
    {Kind::NdArray,  "ndarray",  "EMBER_BACKEND_NDARRAY",  true,  EMBER_BACKEND_NDARRAY,  kHooks<Kind::NdArray>},
    {Kind::Flex,     "flex",     "EMBER_BACKEND_FLEX",     true,  EMBER_BACKEND_FLEX,     kHooks<Kind::Flex>},
    {Kind::Cpu,      "cpu",      "EMBER_BACKEND_CPU",      true,  EMBER_BACKEND_CPU,      kHooks<Kind::Cpu>},
    {Kind::Cuda,     "cuda",     "EMBER_BACKEND_CUDA",     false, EMBER_BACKEND_CUDA,     kHooks<Kind::Cuda>},
    {Kind::Rocm,     "rocm",     "EMBER_BACKEND_ROCM",     false, EMBER_BACKEND_ROCM,     kHooks<Kind::Rocm>},
    {Kind::Vulkan,   "vulkan",   "EMBER_BACKEND_VULKAN",   false, EMBER_BACKEND_VULKAN,   kHooks<Kind::Vulkan>},
    {Kind::Wgpu,     "wgpu",     "EMBER_BACKEND_WGPU",     false, EMBER_BACKEND_WGPU,     kHooks<Kind::Wgpu>},
    {Kind::Metal,    "metal",    "EMBER_BACKEND_METAL",    false, EMBER_BACKEND_METAL,    kHooks<Kind::Metal>},
    {Kind::WebGpu,   "webgpu",   "EMBER_BACKEND_WEBGPU",   false, EMBER_BACKEND_WEBGPU,   kHooks<Kind::WebGpu>},
    {Kind::LibTorch, "libtorch", "EMBER_BACKEND_LIBTORCH", false, EMBER_BACKEND_LIBTORCH, kHooks<Kind::LibTorch>},
    {Kind::Remote,   "remote",   "EMBER_BACKEND_REMOTE",   false, EMBER_BACKEND_REMOTE,   kHooks<Kind::Remote>},
    {Kind::Capture,  "capture",  "EMBER_BACKEND_CAPTURE",  false, EMBER_BACKEND_CAPTURE,  kHooks<Kind::Capture>},
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
static_assert(std::ranges::all_of(kBackends,
                                  [](const BackendEntry& e) {
                                    return !e.compiled || e.hooks.create != nullptr;
                                  }),
              "a compiled-in backend needs a kHooks specialization with a factory");

const BackendEntry& entry_of(Kind kind) {
  return *std::find_if(std::begin(kBackends), std::end(kBackends),
                       [&](const BackendEntry& e) { return e.kind == kind; });
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

/// The backend's first device, if it is compiled in and finds one.
std::optional<DispatchDevice> first_device(Kind kind) {
  std::vector<DispatchDevice> devices = enumerate(kind);
  if (devices.empty()) return std::nullopt;
  return std::move(devices.front());
}

[[noreturn]] void fail_no_device() {
  const bool any_compiled = std::any_of(std::begin(kBackends), std::end(kBackends),
                                        [](const BackendEntry& e) { return e.compiled; });
  std::string message = "[Device::default_device] ";
  message += any_compiled ? "the compiled-in backends found no device; configure with one of"
                          : "no backend is compiled in; configure with one of";
  for (Kind kind : kDefaultOrder) {
    if (entry_of(kind).implemented) message += " -D" + std::string(entry_of(kind).option) + "=ON";
  }
  throw ConfigError(message);
}

}  // namespace

bool is_compiled(Kind kind) {
  return entry_of(kind).compiled;
}

void require_compiled(const DispatchDevice& d, const char* factory) {
  const BackendEntry& entry = entry_of(kind_of(d));
  if (entry.compiled) return;
  if (!entry.implemented) {
    throw ConfigError("[" + std::string(factory) + "] the " + std::string(entry.name) +
                      " backend is not implemented yet in this version of ember (its option " +
                      std::string(entry.option) + " cannot be turned on)");
  }
  throw ConfigError("[" + std::string(factory) + "] the " + std::string(entry.name) +
                    " backend is not compiled in; configure with -D" + std::string(entry.option) +
                    "=ON");
}

std::unique_ptr<Backend> create(const DispatchDevice& d) {
  const std::string name = device_name(d);
  require_compiled(d, name.c_str());
  return entry_of(kind_of(d)).hooks.create(d);
}

std::vector<DispatchDevice> enumerate(Kind kind) {
  const BackendEntry& entry = entry_of(kind);
  if (!entry.compiled || entry.hooks.enumerate == nullptr) return {};
  return entry.hooks.enumerate();
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
#if EMBER_BACKEND_FLEX
  return flex::ThreadPool::instance().threads();
#else
  return 1;
#endif
}

void set_cpu_threads([[maybe_unused]] int threads) {
#if EMBER_BACKEND_FLEX
  flex::ThreadPool::instance().set_threads(threads);
#endif
}

}  // namespace ember::backend
