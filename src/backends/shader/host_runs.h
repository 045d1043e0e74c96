// The ops the shader backends (vulkan, wgpu) sent to the host, counted by name since the process
// began: how tests see that an op ran on the device's kernels (its name absent, or its count
// unchanged), as the kernels take only some of an op's cases.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace ember::shader {

/// The count of each op name sent to the host, guarded for the threads that run ops.
class HostRuns {
 public:
  /// Counts one op of name sent to the host.
  static void record(const std::string& name) {
    const std::lock_guard lock(mutex());
    ++counts()[name];
  }
  /// The counts so far, by op name.
  static std::map<std::string, uint64_t> counts_so_far() {
    const std::lock_guard lock(mutex());
    return counts();
  }

 private:
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  static std::map<std::string, uint64_t>& counts() {
    static std::map<std::string, uint64_t> c;
    return c;
  }
};

}  // namespace ember::shader
