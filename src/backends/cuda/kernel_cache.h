// KernelCache: the cuda backend's kernels, compiled from CUDA C source at run time by NVRTC for
// the GPU's own architecture (sm_90 on an H200: machine code, no PTX left to the driver). Kept in
// memory by source, so each kernel compiles once per process, and on disk by a hash of the
// source, the architecture and NVRTC's version, so that a second process loads the machine code
// instead of compiling it. The disk cache is $EMBER_CACHE_DIR/cuda, else
// $XDG_CACHE_HOME/ember/cuda, else ~/.cache/ember/cuda; EMBER_CACHE_DIR=off keeps it in memory.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "backends/cuda/gpu_context.h"
#include "backends/kernel_disk_cache.h"

namespace ember::cuda {

class KernelCache {
 public:
  explicit KernelCache(std::shared_ptr<const GpuContext> gpu);
  ~KernelCache();
  KernelCache(const KernelCache&) = delete;
  KernelCache& operator=(const KernelCache&) = delete;

  /// The kernel kernel_name of source (extern "C"), compiled on first use. Throws ExecutionError
  /// with NVRTC's log when the source does not compile.
  CUfunction function(const std::string& source, const std::string& kernel_name);

  /// Compilations this process ran (kernels neither in memory nor on disk), for tests.
  int compilations() const;

 private:
  struct Module {
    CUmodule module = nullptr;
    std::unordered_map<std::string, CUfunction> functions;
  };
  Module& module_of(const std::string& source);
  /// The machine code of source: from the disk cache, else compiled (and stored there).
  std::string machine_code(const std::string& source);
  std::string compile(const std::string& source);

  std::shared_ptr<const GpuContext> gpu_;
  backend::KernelDiskCache disk_;
  std::string compiler_;  ///< NVRTC's version and the architecture, part of every key
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Module> modules_;  ///< by source
  int compilations_ = 0;
};

}  // namespace ember::cuda
