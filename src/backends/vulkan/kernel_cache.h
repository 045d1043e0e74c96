// KernelCache: the vulkan backend's compute kernels, GLSL compiled at run time to SPIR-V by
// shaderc (Debian's libshaderc-dev), then made into pipelines. Kept in memory by source, so each
// kernel compiles once per device, and its SPIR-V on disk by a hash of the source and shaderc's
// SPIR-V version (backends/kernel_disk_cache.h: $EMBER_CACHE_DIR/vulkan, ...), so that a second
// process skips the GLSL compiler; the driver's own compilation of the SPIR-V is Vulkan's to
// cache (lavapipe has none across processes).
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "backends/kernel_disk_cache.h"
#include "backends/vulkan/command_stream.h"
#include "backends/vulkan/vulkan_context.h"

namespace ember::vulkan {

class KernelCache {
 public:
  explicit KernelCache(std::shared_ptr<Context> context);
  ~KernelCache();
  KernelCache(const KernelCache&) = delete;
  KernelCache& operator=(const KernelCache&) = delete;

  /// The kernel of source (a GLSL compute shader whose binding 0 is its parameter block and
  /// bindings 1 to tensors its tensors, storage buffers of set 0), made on first use. Throws
  /// ExecutionError with the compiler's log when the source does not compile.
  const Kernel& kernel(const std::string& source, uint32_t tensors);

  /// GLSL compilations this process ran (kernels neither in memory nor on disk), for tests.
  int compilations() const;

 private:
  /// The SPIR-V of source: from the disk cache, else compiled (and stored there).
  std::string spirv(const std::string& source);
  std::string compile(const std::string& source);
  Kernel make(const std::string& spirv, uint32_t tensors);

  std::shared_ptr<Context> context_;
  backend::KernelDiskCache disk_;
  std::string compiler_;  ///< shaderc's SPIR-V version, part of every key
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Kernel> kernels_;  ///< by source
  int compilations_ = 0;
};

}  // namespace ember::vulkan
