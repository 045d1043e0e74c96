// DeviceContext: the state of one physical device, shared by every Device value and tensor
// naming it — the backend runtime, the settings and their lock, the RNG, and a counter of work
// submitted (which tells a profile window whether anything ran in it).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "backends/backend.h"
#include "ember/device_settings.h"
#include "ember/dispatch_device.h"
#include "ember/error.h"

namespace ember::detail {

class DeviceContext {
 public:
  /// The context of physical device d, created on first use (thread-safe). ConfigError when
  /// its backend is not compiled in.
  static std::shared_ptr<DeviceContext> of(const DispatchDevice& d);

  DeviceContext(DispatchDevice device, std::unique_ptr<backend::Backend> backend);

  const DispatchDevice& device() const { return device_; }
  backend::Backend& backend() { return *backend_; }

  /// A snapshot of the settings; does not lock them.
  DeviceSettings settings() const;
  /// Locks the settings (first tensor creation) and returns them.
  DeviceSettings lock_settings();
  /// Sets the defaults; DeviceError UnsupportedDType / AlreadyInitialized.
  void configure(const DeviceConfig& config);

  /// Restarts the random stream from seed.
  void seed(uint64_t seed);
  /// The key of the next random op (see ir/random.h).
  uint64_t next_random_key();

  // Every call into the backend goes through these: an ember::Error passes through unchanged;
  // running out of memory, and any other exception a backend or a library lets escape, becomes
  // the ExecutionError error.h promises, naming the call, the device and (for memory) the bytes
  // asked for and what the device's pools hold.

  /// Runs op on the backend and counts it as work.
  backend::Outputs execute(const ir::Op& op, std::span<const backend::Operand> inputs,
                           std::span<const ir::TensorMeta> outputs);
  /// Uploads host data and counts it as work.
  backend::BufferPtr write(const TensorData& data);
  /// A buffer of meta whose bytes fill writes (Backend::write_from), counted as work.
  backend::BufferPtr write_from(const ir::TensorMeta& meta,
                                const std::function<void(std::span<std::byte>)>& fill);
  /// Copies a tensor back to the host.
  TensorData read(const backend::Operand& operand);
  /// operand's host memory, shared (Backend::share_host_memory); nullopt when the backend keeps
  /// its tensors elsewhere. op names the caller in error messages ("to_dlpack").
  std::optional<backend::HostMemory> share_host_memory(const backend::Operand& operand,
                                                       std::string_view op);
  /// A buffer over foreign host memory (Backend::wrap_host_memory); null when the backend cannot
  /// compute on it.
  backend::BufferPtr wrap_host_memory(const backend::HostMemory& memory, const ir::TensorMeta& meta,
                                      std::string_view op);
  /// Waits for the backend's work (Device::sync).
  void sync();
  /// Submits the backend's buffered work (Device::flush).
  void flush();
  /// A timestamp after the work submitted so far on the device clock; nullptr without one.
  std::shared_ptr<backend::DeviceTimestamp> record_timestamp();
  /// How many ops and uploads ran on this device so far.
  uint64_t work_count() const { return work_count_.load(std::memory_order_relaxed); }

 private:
  /// What a backend call was for, for its error message: the op and the bytes it allocates.
  struct CallSite {
    std::string what;
    uint64_t bytes;
  };
  /// Runs call, turning foreign exceptions into ExecutionError "[what] <device>: ...". site()
  /// gives the CallSite, built only on failure (execute runs for every op).
  template <typename Site, typename Call>
  decltype(auto) guarded(const Site& site, Call&& call);
  /// write and write_from: call, guarded as an upload ("from_data") of bytes, counted as work.
  template <typename Call>
  backend::BufferPtr counted_upload(uint64_t bytes, Call&& call);
  /// "[what] <device>: out of memory: <bytes> bytes requested; <what the pools hold>".
  ExecutionError out_of_memory(const CallSite& failed) const;

  DispatchDevice device_;
  std::unique_ptr<backend::Backend> backend_;
  mutable std::mutex mutex_;  // guards settings_, locked_, rng_state_
  DeviceSettings settings_;
  bool locked_ = false;
  uint64_t rng_state_;
  std::atomic<uint64_t> work_count_{0};
};

}  // namespace ember::detail
