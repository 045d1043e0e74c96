// Device: the one thing user code chooses. A Device names a compute resource (a DispatchDevice)
// plus execution context: whether tensors created on it record autodiff, and how gradients are
// checkpointed. Settings, RNG, memory pools and the backend runtime belong to the physical
// device and are shared by every Device value naming it.
#pragma once

#include <concepts>
#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/device_settings.h"
#include "ember/dispatch_device.h"
#include "ember/dtype.h"
#include "ember/memory.h"
#include "ember/profile.h"

namespace ember {

class TensorData;
class Devices;
class DeviceFilter;
class RemoteHost;

enum class GradientCheckpointingStrategy { Balanced, Disabled };

class Device {
 public:
  /// The default device: the first compiled-in backend in the order CUDA, Metal, ROCm, Vulkan,
  /// WebGPU, wgpu, CPU, LibTorch, Flex, Remote, NdArray; EMBER_DEVICE=<name> forces one.
  /// Throws ConfigError naming the CMake option to enable when no backend is compiled in.
  Device();
  /// Wraps a backend device descriptor (no autodiff).
  explicit Device(DispatchDevice device);

  /// Same as Device().
  static Device default_device();
  /// Parses a device name ("cpu", "cuda:1", "wgpu:discrete:0", "remote://host:port/0", ...);
  /// InvalidArgument for a malformed name, ConfigError when its backend is not compiled in.
  /// Grammar (i is a decimal index, default 0; name() writes the long form: "cuda:0",
  /// "wgpu:discrete:0", "remote://h:1/0"):
  ///   cpu | flex | ndarray | capture | libtorch | libtorch_mps | libtorch_vulkan
  ///   cuda[:i] | rocm[:i] | libtorch_cuda[:i]
  ///   API | API:KIND:i | API:KIND | API:i | API:cpu   with API = wgpu | vulkan | metal | webgpu
  ///       and KIND = discrete | integrated | virtual; API alone is the default adapter and
  ///       API:i means API:discrete:i
  ///   remote://HOST:PORT/i | remote://HOST:PORT   (PORT in 1..65535)
  static Device from_name(std::string_view name);

  // Factories. Each throws ConfigError naming EMBER_BACKEND_<NAME> when its backend is not
  // compiled in.
  static Device cpu();
  static Device cuda(DeviceIndex index = DeviceIndex::Default);
  static Device rocm(DeviceIndex index = DeviceIndex::Default);
  static Device libtorch_cuda(DeviceIndex index = DeviceIndex::Default);
  static Device wgpu(DeviceKind kind = DeviceKind::default_device());
  static Device vulkan(DeviceKind kind = DeviceKind::default_device());
  static Device metal(DeviceKind kind = DeviceKind::default_device());
  static Device webgpu(DeviceKind kind = DeviceKind::default_device());
  static Device flex();
  static Device ndarray();
  static Device libtorch();
  static Device libtorch_mps();
  static Device libtorch_vulkan();
  static Device capture();
  static Device remote(const RemoteHost& host, DeviceIndex index = DeviceIndex::Default);

  /// The backend descriptor (inverse of the constructor).
  const DispatchDevice& as_dispatch() const { return dispatch_; }
  /// The name EMBER_DEVICE takes for this device ("cuda:0").
  std::string name() const { return device_name(dispatch_); }

  // Autodiff context. Idempotent; only first-order differentiation exists.
  /// This device with autodiff on; an autodiff device is returned unchanged (its checkpointing
  /// strategy kept).
  Device autodiff() const;
  /// This device with autodiff off (and no checkpointing strategy).
  Device without_autodiff() const;
  /// Same as without_autodiff (the historical name).
  Device inner() const { return without_autodiff(); }
  bool is_autodiff() const { return autodiff_; }
  /// This autodiff device with Balanced checkpointing; InvalidArgument when autodiff is off.
  Device gradient_checkpointing() const;
  /// The strategy when autodiff is on (Disabled unless gradient_checkpointing was called);
  /// nullopt when autodiff is off.
  std::optional<GradientCheckpointingStrategy> gradient_checkpointing_strategy() const;

  // Mixed precision (docs/mixed-precision.md), like torch.autocast but carried by the device, as
  // autodiff is: tensors created on an autocast device carry the flag, and so do the results of
  // ops with an input on one. On such a device the forward ops follow a fixed policy: matmul and
  // convolution run on their float inputs cast to the autocast dtype; reductions (sum, mean, var,
  // prod), softmax and log_softmax, cumulative sums and products, and the wide-range functions
  // (exp, log, log1p, logit, tan, recip, pow, softplus) run on their f16/bf16 inputs cast to f32;
  // every other op runs on the dtypes it is given. The casts are ordinary ops, recorded by
  // autodiff, so gradients reach f32 parameters in f32 (master weights); backward runs in the
  // forward ops' dtypes, never re-cast. Creation is unchanged: parameters stay in the device's
  // default float dtype. Independent of autodiff and checkpointing, composable in any order.
  /// This device with autocast to dtype (BF16 or F16), its autodiff context kept; an autocast
  /// device gets the new dtype. InvalidArgument for F32 or F64, or a dtype the backend does not
  /// support (supports_dtype).
  Device autocast(FloatDType dtype) const;
  /// This device with autocast off (autodiff and checkpointing kept).
  Device without_autocast() const;
  /// The autocast dtype; nullopt when autocast is off.
  std::optional<FloatDType> autocast_dtype() const { return autocast_; }

  /// Waits for all pending work; ExecutionError when some of it failed.
  void sync() const;
  /// Dispatches buffered work without waiting; a no-op on eager backends.
  void flush() const;

  /// Runs f and measures the device time of the work it put on this device.
  /// Returns {f's result, ProfileDuration}, or just the ProfileDuration when f returns void.
  template <typename F>
  auto profile(F&& f) const {
    return profile_with(ProfileOptions{}, std::forward<F>(f));
  }
  template <typename F>
  auto profile_with(ProfileOptions options, F&& f) const;

  /// Seeds this device's random number generator (random tensors, dropout).
  void seed(uint64_t seed) const;
  /// True when the device supports dtype for storage, conversion and arithmetic.
  bool supports_dtype(DTypeArg dtype) const;

  /// Runs f(input) with this thread's allocations routed to persistent (exact-size, never
  /// pooled) storage. Scopes nest: when an inner one ends, the outer one's mode holds until it
  /// ends too, also when f throws.
  template <typename I, typename F>
  decltype(auto) memory_persistent_allocations(I&& input, F&& f) const;
  /// Asks the allocator to release free memory; may release nothing.
  void memory_cleanup() const;
  /// The device's sliced pools in installation order; nullopt when the backend has none.
  std::optional<std::vector<SlicedPoolReport>> memory_pool_report() const;
  /// What the allocator holds now; nullopt when the backend does not report it.
  std::optional<MemoryPoolUsage> memory_pool_usage() const;
  /// Prepares host data for transfer to this device (e.g. pinned memory); may do nothing.
  void staging(std::span<TensorData*> data) const;
  template <typename R>
  requires(!std::is_convertible_v<R, std::span<TensorData*>>) void staging(R&& range) const {
    std::vector<TensorData*> ptrs;
    for (auto& d : range)
      ptrs.push_back(&d);
    staging(std::span<TensorData*>(ptrs));
  }

  /// The default dtypes. Before anything locked them, a snapshot of the backend defaults.
  DeviceSettings settings() const;
  /// Sets the default dtypes, once per physical device and before any tensor is created on it
  /// (a remote device's physical device is its server's, configured through it). DeviceError kind
  /// UnsupportedDType or AlreadyInitialized.
  void configure(const DeviceConfig& config);

  /// Every device of the types in filter found on this machine (or hosted by a remote host).
  static Devices enumerate(const DeviceFilter& filter);

  /// Equality by hardware identity: autodiff, checkpointing and autocast are ignored.
  friend bool operator==(const Device& a, const Device& b) { return a.dispatch_ == b.dispatch_; }

 private:
  /// Where a profile window opened: the wall clock, the device's work counter then, and on a
  /// device with a clock of its own its timestamp (a backend::DeviceTimestamp).
  struct ProfileWindow {
    std::chrono::steady_clock::time_point start;
    uint64_t work_count;
    std::shared_ptr<void> device_start;
  };
  ProfileWindow profile_begin() const;
  ProfileDuration profile_end(ProfileWindow window, ProfileOptions options) const;
  void begin_persistent_allocations() const;
  void end_persistent_allocations() const noexcept;

  DispatchDevice dispatch_;
  bool autodiff_ = false;
  GradientCheckpointingStrategy checkpointing_ = GradientCheckpointingStrategy::Disabled;
  std::optional<FloatDType> autocast_;
};

/// Prints the device name, wrapped as "autocast(bf16, cpu)" when autocast is on, then as
/// "autodiff(cpu)" when autodiff is on: "autodiff(autocast(bf16, cpu))".
std::ostream& operator<<(std::ostream& os, const Device& d);

template <typename F>
auto Device::profile_with(ProfileOptions options, F&& f) const {
  const ProfileWindow window = profile_begin();
  if constexpr (std::is_void_v<std::invoke_result_t<F>>) {
    std::invoke(std::forward<F>(f));
    return profile_end(window, options);
  } else {
    auto out = std::invoke(std::forward<F>(f));
    ProfileDuration duration = profile_end(window, options);
    return std::pair<decltype(out), ProfileDuration>(std::move(out), std::move(duration));
  }
}

template <typename I, typename F>
decltype(auto) Device::memory_persistent_allocations(I&& input, F&& f) const {
  // Restores the previous mode even when f throws.
  struct Scope {
    const Device& device;
    explicit Scope(const Device& d) : device(d) { device.begin_persistent_allocations(); }
    ~Scope() { device.end_persistent_allocations(); }
  } scope(*this);
  return std::invoke(std::forward<F>(f), std::forward<I>(input));
}

}  // namespace ember

template <>
struct std::hash<ember::Device> {
  std::size_t operator()(const ember::Device& d) const noexcept {
    return ember::hash_value(d.as_dispatch());
  }
};

// Devices, DeviceFilter and RemoteHost complete Device::enumerate's signature.
#include "ember/devices.h"  // IWYU pragma: export
