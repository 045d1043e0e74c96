// The memory of this process as Linux reports it in /proc/self/status, for the benchmarks' peak
// memory figures (the PyTorch peers read the same fields: bench/peer_torch/common.py).
#pragma once

namespace ember::bench {

struct ProcessMemory {
  double rss_mib;   ///< VmRSS: resident now
  double peak_mib;  ///< VmHWM: the most resident since the start or the last reset
};

/// VmRSS and VmHWM; ExecutionError when /proc/self/status cannot be read.
ProcessMemory process_memory();
/// Resets VmHWM to the current RSS (writes 5 to /proc/self/clear_refs); ExecutionError when the
/// kernel refuses.
void reset_peak_memory();

}  // namespace ember::bench
