// The ember side of the op benchmarks: times one workload (op_workloads.h) with Google
// Benchmark, on the device --device names (default: the default device), or the STREAM-like
// bandwidth measure (support/stream.h). bench/run_ops.py runs it once per workload and round,
// alternating with the PyTorch peer, with flags such as
//
//   op_bench --device flex --op softmax --shape 64,1024,1024 --dim 2 --benchmark_format=json
//   op_bench --device cpu --op matmul --shape 2048,2048,2048 --dtype bf16
//   op_bench --op stream_copy --shape 33554432 --threads 2
//
// Each iteration runs the step and syncs the device; two warm-up steps run first. The counter
// "checksum" (sum of |last output|, read back after the timed loop) lets the driver check that
// ember and PyTorch computed the same thing. Threads: EMBER_NUM_THREADS (stream: --threads).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "op_workloads.h"
#include "support/flags.h"
#include "support/pattern.h"
#include "support/stream.h"
#include "support/timed_step.h"

namespace {

using ember::bench::Flags;

void time_stream(benchmark::State& state, int64_t n, int threads, bool triad) {
  ember::bench::StreamArrays arrays(n, threads);
  const auto call = [&] { triad ? arrays.triad(3.0F) : arrays.copy(); };
  call();
  for (auto _ : state)
    call();
  state.counters["checksum"] = arrays.sample(n - 1);
}

void register_stream(const std::string& op, const Flags& flags) {
  const std::vector<int64_t> shape = flags.integers("shape");
  if (shape.size() != 1)
    throw ember::InvalidArgument("[op_bench] " + op + " needs --shape N (one dim), got " +
                                 std::to_string(shape.size()) + " dims");
  const auto threads = static_cast<int>(flags.integer("threads", 1));
  benchmark::RegisterBenchmark(op.c_str(), time_stream, shape[0], threads, op == "stream_triad")
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond);
}

/// --dtype's value (default f32); InvalidArgument for a name that is no dtype.
ember::DType dtype_flag(const Flags& flags) {
  const std::string name = flags.text("dtype", "f32");
  const std::optional<ember::DType> dtype = ember::dtype_from_name(name);
  if (!dtype) throw ember::InvalidArgument("[op_bench] --dtype: unknown dtype '" + name + "'");
  return *dtype;
}

void register_op(const std::string& op, const Flags& flags) {
  const std::string device_name = flags.text("device", "");
  const ember::Device device =
      device_name.empty() ? ember::Device() : ember::Device::from_name(device_name);
  benchmark::AddCustomContext("ember_device", device.name());
  const ember::bench::OpSpec spec{.op = op,
                                  .shape = flags.integers("shape"),
                                  .dim = flags.integer("dim", -1),
                                  .out_channels = flags.integer("out-channels", 0),
                                  .kernel = flags.integer("kernel", 0),
                                  .padding = flags.integer("padding", 0),
                                  .dtype = dtype_flag(flags)};
  benchmark::RegisterBenchmark(op.c_str(), ember::bench::time_step,
                               ember::bench::make_step(spec, device), device)
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond);
}

void register_workload(const Flags& flags) {
  const std::string op = flags.text("op", "");
  if (op == "stream_copy" || op == "stream_triad")
    register_stream(op, flags);
  else
    register_op(op, flags);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);  // takes the --benchmark_* flags out of argv
  try {
    register_workload(Flags(
        argc, argv,
        {"device", "op", "shape", "dim", "out-channels", "kernel", "padding", "threads", "dtype"}));
    benchmark::RunSpecifiedBenchmarks();
  } catch (const ember::Error& e) {
    std::fprintf(stderr, "op_bench: %s\n", e.what());
    return 2;
  }
  benchmark::Shutdown();
  return 0;
}
