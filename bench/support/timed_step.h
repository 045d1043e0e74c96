// The Google Benchmark loop of a step on a device, shared by op_bench and
// libtorch_overhead_bench: the step synced each iteration, its last result checksummed.
#pragma once

#include <benchmark/benchmark.h>

#include "ember/ember.h"
#include "op_workloads.h"
#include "support/pattern.h"

namespace ember::bench {

inline void time_step(benchmark::State& state, const Step& step, const Device& device) {
  TensorHandle last = step();
  device.sync();
  for (auto _ : state) {
    last = step();
    device.sync();
    benchmark::DoNotOptimize(last);
  }
  state.counters["checksum"] = checksum(last);
}

}  // namespace ember::bench
