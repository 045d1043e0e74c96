// KernelCache: WGSL compute shaders made into pipelines once, kept in memory by source for the
// device's life (wgpu-native compiles WGSL to the API's own code itself; there is no binary to
// keep on disk). A shader wgpu-native rejects is an ExecutionError with its message, caught in an
// error scope so that the device stays usable.
#pragma once

#include <webgpu.h>

#include <memory>
#include <string>
#include <unordered_map>

#include "backends/wgpu/wgpu_context.h"

namespace ember::wgpu {

/// A compute pipeline (entry point main) and the layout of its bind group 0, derived from the
/// shader (WebGPU's automatic layout).
struct Kernel {
  WGPUComputePipeline pipeline = nullptr;
  WGPUBindGroupLayout layout = nullptr;
};

class KernelCache {
 public:
  explicit KernelCache(std::shared_ptr<Context> context) : context_(std::move(context)) {}
  ~KernelCache();
  KernelCache(const KernelCache&) = delete;
  KernelCache& operator=(const KernelCache&) = delete;

  /// The kernel of source, made on first use. Throws ExecutionError when wgpu-native rejects it.
  const Kernel& kernel(const std::string& source);
  /// How many kernels were made (the cache's misses).
  std::size_t size() const { return kernels_.size(); }

 private:
  Kernel make(const std::string& source);

  std::shared_ptr<Context> context_;
  std::unordered_map<std::string, Kernel> kernels_;
};

}  // namespace ember::wgpu
