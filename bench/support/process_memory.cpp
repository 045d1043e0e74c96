#include "support/process_memory.h"

#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "ember/error.h"

namespace ember::bench {

namespace {

constexpr double kKibPerMib = 1024.0;

}  // namespace

ProcessMemory process_memory() {
  std::ifstream status("/proc/self/status");
  std::optional<double> rss_kib, peak_kib;
  std::string line;
  while (std::getline(status, line)) {
    std::istringstream fields(line);
    std::string key;
    double kib = 0;
    fields >> key >> kib;
    if (key == "VmRSS:") rss_kib = kib;
    if (key == "VmHWM:") peak_kib = kib;
  }
  if (!rss_kib || !peak_kib)
    throw ExecutionError("[process_memory] /proc/self/status has no VmRSS or VmHWM");
  return {*rss_kib / kKibPerMib, *peak_kib / kKibPerMib};
}

void reset_peak_memory() {
  std::ofstream clear_refs("/proc/self/clear_refs");
  clear_refs << "5";
  clear_refs.flush();
  if (!clear_refs) throw ExecutionError("[reset_peak_memory] cannot write /proc/self/clear_refs");
}

}  // namespace ember::bench
