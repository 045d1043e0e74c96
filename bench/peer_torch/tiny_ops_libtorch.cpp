// LibTorch's C++ API as the peer of the tiny-op overhead rows (shared/BENCHMARKING.md: for
// dispatch overhead, C++ against C++ is the fairer comparison than C++ against Python). Built
// only where CMake finds Debian's libtorch-dev; bench/run_ops.py adds its rows when it exists.
//
//   tiny_ops_libtorch --op add --shape 8,8 --variant call --threads 2 --benchmark_format=json
//
// Same inputs as op_bench (pattern.h's values), same loop (one warm-up, then Google Benchmark's
// timed iterations), same checksum counter. --variant out writes into a preallocated output.
#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "ember/error.h"
#include "support/flags.h"

namespace {

using Step = std::function<torch::Tensor()>;

/// bench/support/pattern.h's values, computed as PyTorch's Python peer does.
torch::Tensor pattern(const std::vector<int64_t>& shape, int64_t seed) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  const torch::Tensor k = (torch::arange(n, torch::kInt64) * 7919 + 12345 * seed) % 65521;
  return (k.to(torch::kFloat32) / 32760.5 - 1.0).reshape(shape);
}

Step make_step(const std::string& op, const std::vector<int64_t>& shape, bool out_variant) {
  const torch::Tensor a = pattern(shape, 0), b = pattern(shape, 1);
  torch::Tensor out = torch::empty(shape);  // not const: the out= lambdas write into it
  if (op == "add")
    return out_variant ? Step([=]() mutable { return torch::add_out(out, a, b); })
                       : Step([=] { return torch::add(a, b); });
  if (op == "mul")
    return out_variant ? Step([=]() mutable { return torch::mul_out(out, a, b); })
                       : Step([=] { return torch::mul(a, b); });
  if (op == "exp")
    return out_variant ? Step([=]() mutable { return torch::exp_out(out, a); })
                       : Step([=] { return torch::exp(a); });
  throw ember::InvalidArgument("[tiny_ops_libtorch] unknown op '" + op + "' (add, mul, exp)");
}

void time_step(benchmark::State& state, const Step& step) {
  torch::Tensor last = step();
  for (auto _ : state) {
    last = step();
    benchmark::DoNotOptimize(last);
  }
  state.counters["checksum"] = last.to(torch::kFloat64).abs().sum().item<double>();
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  try {
    const ember::bench::Flags flags(argc, argv, {"op", "shape", "variant", "threads"});
    torch::set_num_threads(static_cast<int>(flags.integer("threads", 1)));
    const std::string op = flags.text("op", "");
    const Step step =
        make_step(op, flags.integers("shape"), flags.text("variant", "call") == "out");
    benchmark::RegisterBenchmark(op.c_str(), time_step, step)
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
