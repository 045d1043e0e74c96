// KernelProfile: where a vulkan device's time goes, kernel by kernel, for finding what a workload
// waits on (docs/backends/vulkan.md, "Profiling kernels"). With EMBER_VULKAN_PROFILE=<file> set,
// the command stream writes a timestamp at the start of each batch and after each command (and
// its barrier); when a batch's fence signals, each command's ticks since the one before go to its
// kernel's label, and the ticks between the end of a batch and the start of the next (the device
// idle, waiting for the host's next submission) to a line of their own. The host's side too: the
// host's time before each command (from the command before it: the op's work up to its recording,
// less what the lines below take), and the host's time waiting on fences and in vkQueueSubmit, on
// lines of their own. The file holds the table
// so far, written again at each of the stream's syncs (Device::sync) and when the stream goes
// (devices live to the process's end). Off (no queries at all) otherwise.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace ember::vulkan {

class KernelProfile {
 public:
  /// The profile EMBER_VULKAN_PROFILE asks for, of device (its name heads the table), or nullptr
  /// when the variable is unset or empty.
  static std::unique_ptr<KernelProfile> from_environment(std::string device, double ns_per_tick);

  KernelProfile(std::string path, std::string device, double ns_per_tick);
  ~KernelProfile() { write(); }
  KernelProfile(const KernelProfile&) = delete;
  KernelProfile& operator=(const KernelProfile&) = delete;

  using Clock = std::chrono::steady_clock;

  /// One command of label took ticks (from the end of the command before it).
  void add_command(const std::string& label, uint64_t ticks);
  /// The host recorded a command of label: its host time is the time since the last command's,
  /// less the waits and submissions since.
  void add_host(const std::string& label);
  /// The host waited on fences for time.
  void add_wait(Clock::duration time);
  /// The host spent time in vkQueueSubmit.
  void add_submit(Clock::duration time);
  /// The device waited ticks between two batches.
  void add_idle(uint64_t ticks);
  /// Writes the table so far over the file (a failure is reported on stderr, not thrown: this is a
  /// diagnostic, and the destructor calls it).
  void write() const noexcept;

  /// A kernel's label: the first comment line of its source and a hash of the whole source, so
  /// that the variants of one kernel are told apart. Where the profile is on, the source is also
  /// written to <file>.sources/<hash>.comp, to look the variant up.
  static std::string label_of(const std::string& source);

 private:
  struct Entry {
    uint64_t calls = 0;
    uint64_t ticks = 0;      ///< the device's
    Clock::duration host{};  ///< the host's
  };
  /// Counts time of the host's on entry, apart from the commands' host times.
  void add_aside(Entry& entry, Clock::duration time);
  std::string table() const;

  std::string path_;
  std::string device_;
  double ns_per_tick_;
  std::map<std::string, Entry> commands_;
  Entry idle_;
  Entry waits_;
  Entry submits_;
  Clock::time_point last_command_ = Clock::now();
  Clock::duration aside_since_last_{};  ///< waits and submissions since last_command_
};

}  // namespace ember::vulkan
