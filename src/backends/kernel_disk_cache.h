// KernelDiskCache: the on-disk cache of the GPU backends' compiled kernels (cuda's machine code,
// vulkan's SPIR-V), so that a second process loads what a first compiled. One file per key, named
// by a hash of the key and holding the whole key, compared before its code is used (a hash
// collision is then harmless), then the code with its length and hash, so that a file cut short
// or damaged is a miss. (The hash guards against accidents, not against someone who may write to
// the folder: keep it private, as the default under the home folder is.) The folder is
// $EMBER_CACHE_DIR/<backend>, else $XDG_CACHE_HOME/ember/<backend>, else ~/.cache/ember/<backend>;
// EMBER_CACHE_DIR=off: no disk cache. Only a cache: a file that cannot be read or written is a
// miss, never an error.
#pragma once

#include <functional>
#include <string>

namespace ember::backend {

class KernelDiskCache {
 public:
  /// The cache of one backend's kernels, in its own folder (backend: "cuda", "vulkan"), with
  /// files of the extension suffix (".cubin", ".spv").
  KernelDiskCache(const std::string& backend, std::string suffix);

  /// The code stored under key; empty when there is none (or no disk cache).
  std::string load(const std::string& key) const;
  /// Stores code under key, through a temporary file renamed into place, so that a process
  /// reading the cache never sees half a file.
  void store(const std::string& key, const std::string& code) const;
  /// The code stored under key, else compile()'s, stored under key.
  std::string load_or_compile(const std::string& key,
                              const std::function<std::string()>& compile) const;

 private:
  std::string path_of(const std::string& key) const;

  std::string folder_;  ///< empty: no disk cache
  std::string suffix_;
};

}  // namespace ember::backend
