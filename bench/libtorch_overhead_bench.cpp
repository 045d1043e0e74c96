// Per-op host overhead of the libtorch backend (docs/backends/libtorch.md): each tiny op timed in
// one run three ways, on the same inputs (support/pattern.h's values) with the same loop as
// op_bench (one warm-up, then the step and a sync per iteration):
//   LibTorch direct   the op through LibTorch's C++ API (peer_torch/tiny_ops_steps.h, the steps of
//                     the tiny_ops_libtorch peer)
//   ember libtorch    ember's op on Device::libtorch(): argument checks, ir::infer, the device
//                     context, then the same ATen call
//   ember cpu         ember's op on Device::cpu(), for scale
// then a table of the median µs/op of each and ember libtorch's overhead over LibTorch direct
// (the backend's target: at most 1 µs). LibTorch and ember compute on one thread each.
//
//   libtorch_overhead_bench --benchmark_repetitions=5 --benchmark_min_time=0.2
#include <ATen/Parallel.h>
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "op_workloads.h"
#include "peer_torch/tiny_ops_steps.h"
#include "support/pattern.h"
#include "support/timed_step.h"

namespace {

using ember::bench::TinyOpStep;

/// The ops and shapes of the tiny-op rows (bench/run_ops.py's).
const char* const kOps[] = {"add", "mul", "exp"};
const std::vector<std::vector<int64_t>> kShapes = {{1}, {8, 8}};
/// The columns, in the order they run and print.
const char* const kSides[] = {"LibTorch direct", "ember libtorch", "ember cpu"};

std::string row_name(const std::string& op, const std::vector<int64_t>& shape) {
  std::string name = op + " [";
  for (std::size_t d = 0; d < shape.size(); ++d)
    name += (d > 0 ? "x" : "") + std::to_string(shape[d]);
  return name + "]";
}

void time_torch(benchmark::State& state, TinyOpStep* step) {
  step->run();
  for (auto _ : state)
    step->run();
  state.counters["checksum"] = step->checksum();
}

/// b timed on the wall clock, reported in µs/op.
void in_microseconds(benchmark::internal::Benchmark* b) {
  b->UseRealTime()->Unit(benchmark::kMicrosecond);
}

/// The console's report, and every repetition's µs/op kept by benchmark name for the table.
class TableReporter final : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.run_type == Run::RT_Iteration && !run.error_occurred)
        times_[run.run_name.function_name].push_back(run.GetAdjustedRealTime());
    }
    ConsoleReporter::ReportRuns(runs);
  }
  /// The median µs/op of benchmark name (its repetitions'); -1 when it did not run.
  double median(const std::string& name) const {
    const auto found = times_.find(name);
    if (found == times_.end()) return -1;
    std::vector<double> times = found->second;
    std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
    return times[times.size() / 2];
  }

 private:
  std::map<std::string, std::vector<double>> times_;
};

void print_table(const TableReporter& reporter, const std::vector<std::string>& rows) {
  std::printf("\n%-10s %16s %16s %12s %12s\n", "op", "LibTorch direct", "ember libtorch",
              "overhead", "ember cpu");
  for (const std::string& row : rows) {
    const double direct = reporter.median(row + "/" + kSides[0]);
    const double libtorch = reporter.median(row + "/" + kSides[1]);
    const double cpu = reporter.median(row + "/" + kSides[2]);
    std::printf("%-10s %13.3f us %13.3f us %+9.3f us %9.3f us\n", row.c_str(), direct, libtorch,
                libtorch - direct, cpu);
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  try {
    at::set_num_threads(1);
    ember::set_num_threads(1);
    const ember::Device libtorch = ember::Device::libtorch();
    const ember::Device cpu = ember::Device::cpu();
    std::vector<std::unique_ptr<TinyOpStep>> torch_steps;
    std::vector<std::string> rows;
    for (const std::vector<int64_t>& shape : kShapes) {
      for (const char* op : kOps) {
        const std::string row = row_name(op, shape);
        rows.push_back(row);
        torch_steps.push_back(ember::bench::make_tiny_op_step(op, shape, false));
        const ember::bench::OpSpec spec{.op = op, .shape = shape};
        in_microseconds(benchmark::RegisterBenchmark((row + "/" + kSides[0]).c_str(), time_torch,
                                                     torch_steps.back().get()));
        in_microseconds(
            benchmark::RegisterBenchmark((row + "/" + kSides[1]).c_str(), ember::bench::time_step,
                                         ember::bench::make_step(spec, libtorch), libtorch));
        in_microseconds(benchmark::RegisterBenchmark((row + "/" + kSides[2]).c_str(),
                                                     ember::bench::time_step,
                                                     ember::bench::make_step(spec, cpu), cpu));
      }
    }
    TableReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    print_table(reporter, rows);
  } catch (const ember::Error& e) {
    std::fprintf(stderr, "libtorch_overhead_bench: %s\n", e.what());
    return 2;
  }
  benchmark::Shutdown();
  return 0;
}
