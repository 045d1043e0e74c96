// The WebGPU device ember runs on, through wgpu-native's webgpu.h: the process's instance, the
// adapters it offers (each with the DeviceKind that names it), and one device with its queue.
// WebGPU reports errors through callbacks: an uncaptured error (a failed validation, a failed
// submission, out of memory) or a lost device poisons the context, and the next call that checks
// it throws ExecutionError with the message; the process goes on (docs/backends/wgpu.md).
#pragma once

#include <webgpu.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ember/dispatch_device.h"

namespace ember::wgpu {

/// One adapter ember can use.
struct Adapter {
  WGPUAdapter handle = nullptr;
  /// The kind that names it: its type and its index among the adapters of that type.
  DeviceKind kind = DeviceKind::default_device();
  std::string name;     ///< the adapter's device name ("llvmpipe (LLVM 15.0.6, 256 bits)")
  std::string backend;  ///< the API under it ("Vulkan")
  WGPULimits limits = WGPU_LIMITS_INIT;
  bool timestamps = false;  ///< timestamp queries, also between passes (wgpu-native's feature)
};

/// The adapters of the primary APIs (Vulkan, Metal, DX12) in wgpu-native's order; empty (never an
/// exception) when there is none.
const std::vector<Adapter>& adapters();

/// The adapter kind selects, or nullptr: DeviceKind::default_device() the first discrete GPU,
/// else the first integrated, then CPU adapter (WebGPU has no virtual type: virtual_gpu(i) finds
/// none); the others their type's adapter of that index.
const Adapter* select(const DeviceKind& kind);

/// A device on one adapter, with its queue. Used by one thread at a time (the backend's).
class Context {
 public:
  /// Throws ExecutionError when the device cannot be made.
  Context(const Adapter& adapter, std::string name);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  WGPUDevice device() const { return device_; }
  WGPUQueue queue() const { return queue_; }
  const Adapter& adapter() const { return adapter_; }
  const std::string& name() const { return name_; }

  /// Waits until the queue has run everything submitted, then check_usable.
  void wait();
  /// Throws ExecutionError naming the first error when the context is poisoned.
  void check_usable() const;
  /// Marks the context poisoned by why (an error callback's message).
  void poison(const std::string& why);
  bool poisoned() const { return poisoned_.load(std::memory_order_acquire); }

 private:
  Adapter adapter_;
  std::string name_;
  WGPUDevice device_ = nullptr;
  WGPUQueue queue_ = nullptr;
  mutable std::mutex mutex_;
  std::string error_;
  std::atomic<bool> poisoned_{false};
};

/// A WGPUStringView of text (which must outlive it).
WGPUStringView view(const std::string& text);

}  // namespace ember::wgpu
