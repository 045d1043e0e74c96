// KernelCache: the cuda backend's kernels, compiled from CUDA C source at run time by NVRTC for
// the GPU's own architecture (sm_90 on an H200: machine code, no PTX left to the driver). Kept in
// memory by source, so each kernel compiles once per process, and on disk by a hash of the
// source, the architecture and NVRTC's version, so that a second process loads the machine code
// instead of compiling it. The disk cache is $EMBER_CACHE_DIR/cuda, else
// $XDG_CACHE_HOME/ember/cuda, else ~/.cache/ember/cuda; EMBER_CACHE_DIR=off keeps it in memory.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>

#include "backends/cuda/gpu_context.h"
#include "backends/kernel_disk_cache.h"
#include "ir/op_fields.h"

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

  /// The kernel kernel_name of the source make_source(args...) builds, found by the args alone:
  /// the source is built and looked up by its text only the first time those args come. A
  /// launch's host time is mostly this lookup, and a source is kilobytes to build and hash.
  /// args: what the source depends on (numbers, enums, optionals of them, aggregates of such).
  template <typename... Params, typename... Args>
  CUfunction function(std::string (*make_source)(Params...), std::string_view kernel_name,
                      const Args&... args) {
    std::string key(kernel_name);
    append_key(key, reinterpret_cast<std::uintptr_t>(make_source));
    (append_key(key, args), ...);
    {
      const std::lock_guard lock(mutex_);
      if (const auto it = by_key_.find(key); it != by_key_.end()) return it->second;
    }
    const CUfunction found = function(make_source(args...), std::string(kernel_name));
    const std::lock_guard lock(mutex_);
    by_key_.emplace(std::move(key), found);
    return found;
  }

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

  template <typename T>
  static void append_key(std::string& key, const T& value) {
    if constexpr (ir::FieldAggregate<T>) {
      ir::for_each_field(value, [&](const auto& field) { append_key(key, field); });
    } else if constexpr (requires { value.has_value(); }) {
      key += value.has_value() ? '\1' : '\0';
      if (value) append_key(key, *value);
    } else {
      static_assert(std::is_arithmetic_v<T> || std::is_enum_v<T>,
                    "KernelCache: a kernel's key holds numbers, enums and aggregates of them");
      char bytes[sizeof(T)];
      std::memcpy(bytes, &value, sizeof(T));
      key.append(bytes, sizeof(T));
    }
  }

  std::shared_ptr<const GpuContext> gpu_;
  backend::KernelDiskCache disk_;
  std::string compiler_;  ///< NVRTC's version and the architecture, part of every key
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Module> modules_;     ///< by source
  std::unordered_map<std::string, CUfunction> by_key_;  ///< by kernel name, builder and its args
  int compilations_ = 0;
};

}  // namespace ember::cuda
