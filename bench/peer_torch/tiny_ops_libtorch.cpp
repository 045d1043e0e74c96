// LibTorch's C++ API as the peer of the tiny-op overhead rows (shared/BENCHMARKING.md: for
// dispatch overhead, C++ against C++ is the fairer comparison than C++ against Python). Built
// only where CMake finds Debian's libtorch-dev; bench/run_ops.py adds its rows when it exists.
//
//   tiny_ops_libtorch --op add --shape 8,8 --variant call --threads 2 --benchmark_format=json
//
// Same inputs as op_bench (pattern.h's values), same loop (one warm-up, then Google Benchmark's
// timed iterations), same checksum counter. --variant out writes into a preallocated output.
// The steps are tiny_ops_steps.h's, which libtorch_overhead_bench times too.
#include <ATen/Parallel.h>
#include <benchmark/benchmark.h>

#include <cstdio>
#include <memory>
#include <string>

#include "ember/error.h"
#include "peer_torch/tiny_ops_steps.h"
#include "support/flags.h"

namespace {

void time_step(benchmark::State& state, ember::bench::TinyOpStep* step) {
  step->run();
  for (auto _ : state)
    step->run();
  state.counters["checksum"] = step->checksum();
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  try {
    const ember::bench::Flags flags(argc, argv, {"op", "shape", "variant", "threads"});
    at::set_num_threads(static_cast<int>(flags.integer("threads", 1)));
    const std::string op = flags.text("op", "");
    const std::unique_ptr<ember::bench::TinyOpStep> step = ember::bench::make_tiny_op_step(
        op, flags.integers("shape"), flags.text("variant", "call") == "out");
    benchmark::RegisterBenchmark(op.c_str(), time_step, step.get())
        ->UseRealTime()
        ->Unit(benchmark::kMicrosecond);
    benchmark::RunSpecifiedBenchmarks();
  } catch (const ember::Error& e) {
    std::fprintf(stderr, "tiny_ops_libtorch: %s\n", e.what());
    return 2;
  }
  benchmark::Shutdown();
  return 0;
}
