// The Google Benchmark loop of a step on a device, shared by op_bench and
// libtorch_overhead_bench: the step synced each iteration, its last result checksummed.
#pragma once

#include <benchmark/benchmark.h>

#include "ember/ember.h"
#include "op_workloads.h"
#include "support/pattern.h"

namespace ember::bench {

inline void time_step(benchmark::State& state, const Step& step, const Device& device) {
  // Two warm-up steps: each timed step makes its output while the previous one is alive, so a
  // pooled device cycles through two outputs' memory, both first touched here. With one, the
  // first timed step paid the page faults of the second (about 0.25 s for 64 MiB when the
  // machine had no transparent huge pages to give), and a short run timed that step alone.
  TensorHandle last = step();
  device.sync();
  last = step();
  device.sync();
  for (auto _ : state) {
    last = step();
    device.sync();
    benchmark::DoNotOptimize(last);
  }
  state.counters["checksum"] = checksum(last);
}

}  // namespace ember::bench
