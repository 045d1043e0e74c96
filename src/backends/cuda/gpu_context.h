// GpuContext: one GPU as the cuda backend holds it: the driver's primary context on it, the one
// stream every op of the device runs on, and its properties. Shared by the backend, its memory
// pages and its kernel cache, so that whichever goes last releases the GPU.
#pragma once

#include <atomic>
#include <string>
#include <string_view>

#include "backends/cuda/cuda_api.h"

namespace ember::cuda {

class GpuContext {
 public:
  /// GPU index (< cuDeviceGetCount). Throws ExecutionError when the driver refuses it.
  GpuContext(const Api& api, int index);
  ~GpuContext();
  GpuContext(const GpuContext&) = delete;
  GpuContext& operator=(const GpuContext&) = delete;

  const Api& api() const { return api_; }
  /// "cuda:0", for messages.
  const std::string& name() const { return name_; }
  CUstream stream() const { return stream_; }
  int multiprocessors() const { return multiprocessors_; }
  /// The compute capability as NVRTC names its architecture: "sm_90".
  const std::string& architecture() const { return architecture_; }

  /// Makes the context current on the calling thread (every entry point of the backend does).
  void make_current() const;
  /// Throws ExecutionError "[cuda:0] call failed: ..." unless result is success. An error that
  /// leaves the context unusable (an illegal address, a launch failure) poisons the device: every
  /// later call then throws at once, saying so.
  void check(CUresult result, std::string_view call) const;
  /// Throws when the device is poisoned.
  void check_usable() const;
  /// Waits for the stream; turns an asynchronous failure into ExecutionError.
  void synchronize() const;

 private:
  const Api& api_;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  CUstream stream_ = nullptr;
  std::string name_;
  std::string architecture_;
  int multiprocessors_ = 1;
  mutable std::atomic<bool> poisoned_{false};
  mutable std::string poison_reason_;  // written once, before poisoned_ is set
};

}  // namespace ember::cuda
