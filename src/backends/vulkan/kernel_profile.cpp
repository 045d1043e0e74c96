#include "backends/vulkan/kernel_profile.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <utility>
#include <vector>

namespace ember::vulkan {
namespace {

constexpr const char* kVariable = "EMBER_VULKAN_PROFILE";
constexpr std::size_t kMaxLabelText = 100;

/// The file EMBER_VULKAN_PROFILE names, or "" when it is unset.
std::string profile_path() {
  const char* value = std::getenv(kVariable);
  return value == nullptr ? std::string() : std::string(value);
}

/// The first line of source that is a comment, its "//" and spaces dropped, cut to kMaxLabelText.
std::string first_comment(const std::string& source) {
  std::size_t start = 0;
  while (start < source.size()) {
    const std::size_t end = std::min(source.find('\n', start), source.size());
    const std::size_t text = source.find_first_not_of(" \t", start);
    if (text < end && source.compare(text, 2, "//") == 0) {
      const std::size_t words = std::min(source.find_first_not_of("/ \t", text), end);
      return source.substr(words, std::min(end - words, kMaxLabelText));
    }
    start = end + 1;
  }
  return "kernel";
}

std::string hex(uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
  return text;
}

}  // namespace

std::unique_ptr<KernelProfile> KernelProfile::from_environment(std::string device,
                                                               double ns_per_tick) {
  std::string path = profile_path();
  if (path.empty()) return nullptr;
  return std::make_unique<KernelProfile>(std::move(path), std::move(device), ns_per_tick);
}

KernelProfile::KernelProfile(std::string path, std::string device, double ns_per_tick)
    : path_(std::move(path)), device_(std::move(device)), ns_per_tick_(ns_per_tick) {}

void KernelProfile::write() const noexcept {
  try {
    std::ofstream file(path_, std::ios::trunc);
    file << table();
    if (file) return;
  } catch (...) {
    // Reported below, as a failed write.
  }
  std::fprintf(stderr, "[%s] could not write %s's table to %s\n", device_.c_str(), kVariable,
               path_.c_str());
}

void KernelProfile::add_command(const std::string& label, uint64_t ticks) {
  Entry& entry = commands_[label];
  ++entry.calls;
  entry.ticks += ticks;
}

void KernelProfile::add_host(const std::string& label) {
  const Clock::time_point now = Clock::now();
  Entry& entry = commands_[label];
  entry.host += now - last_command_ - aside_since_last_;
  last_command_ = now;
  aside_since_last_ = {};
}

void KernelProfile::add_aside(Entry& entry, Clock::duration time) {
  ++entry.calls;
  entry.host += time;
  aside_since_last_ += time;
}

void KernelProfile::add_wait(Clock::duration time) {
  add_aside(waits_, time);
}
void KernelProfile::add_submit(Clock::duration time) {
  add_aside(submits_, time);
}

void KernelProfile::add_idle(uint64_t ticks) {
  ++idle_.calls;
  idle_.ticks += ticks;
}

std::string KernelProfile::label_of(const std::string& source) {
  const std::string hash = hex(std::hash<std::string>{}(source));
  if (const std::string path = profile_path(); !path.empty()) {
    const std::filesystem::path folder = path + ".sources";
    std::error_code ignored;  // the label stands without its source on disk
    std::filesystem::create_directories(folder, ignored);
    std::ofstream(folder / (hash + ".comp")) << source;
  }
  return first_comment(source) + " [" + hash + "]";
}

std::string KernelProfile::table() const {
  std::vector<std::pair<std::string, Entry>> rows(commands_.begin(), commands_.end());
  std::sort(rows.begin(), rows.end(),
            [](const auto& a, const auto& b) { return a.second.ticks > b.second.ticks; });
  uint64_t total = idle_.ticks;
  for (const auto& [label, entry] : rows)
    total += entry.ticks;
  Clock::duration host_total = waits_.host + submits_.host;
  for (const auto& [label, entry] : rows)
    host_total += entry.host;
  const auto ms = [&](uint64_t ticks) { return static_cast<double>(ticks) * ns_per_tick_ * 1e-6; };
  const auto host_ms = [](Clock::duration time) {
    return std::chrono::duration<double, std::milli>(time).count();
  };
  std::string text = "# " + std::string(kVariable) + ": " + device_ + ", " +
                     std::to_string(ms(total)) + " ms of device time and " +
                     std::to_string(host_ms(host_total)) + " ms of the host's in all\n" +
                     "# device ms   %      calls    us/call   host ms   us/call  command\n";
  const auto line = [&](const Entry& entry, const std::string& label) {
    char numbers[128];
    const double calls = entry.calls == 0 ? 1.0 : static_cast<double>(entry.calls);
    std::snprintf(numbers, sizeof numbers, "%10.3f %6.2f %9llu %9.2f %10.3f %8.2f  ",
                  ms(entry.ticks),
                  total == 0 ? 0.0 : 100.0 * static_cast<double>(entry.ticks) / total,
                  static_cast<unsigned long long>(entry.calls), 1e3 * ms(entry.ticks) / calls,
                  host_ms(entry.host), 1e3 * host_ms(entry.host) / calls);
    text += numbers + label + "\n";
  };
  line(idle_, "(the device idle between batches, waiting for the host)");
  line(waits_, "(the host waiting on fences)");
  line(submits_, "(the host in vkQueueSubmit)");
  for (const auto& [label, entry] : rows)
    line(entry, label);
  return text;
}

}  // namespace ember::vulkan
