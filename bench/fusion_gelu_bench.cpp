// The fusion micro-benchmark: GELU (tanh form) written from 9 primitive ops (mul, add, tanh and
// scalar ops) on an f32 tensor ([32, 512, 2048] by default), run on eager flex (one pass over
// memory per op) and on FusionBackend over flex (one fused pass). Rates are in GB/s of the
// traffic a single pass needs (read x, write y), beside a STREAM copy of the machine and one
// eager op (x * 1), the most an elementwise pass can reach. Prints the best and the median of
// --repeats runs after one warm-up. Flags: --shape a,b,c  --repeats n.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/flex/flex_backend.h"
#if EMBER_BACKEND_CPU
#include "backends/cpu/cpu_backend.h"
#endif
#include "backends/flex/thread_pool.h"
#include "fusion/fusion_backend.h"
#include "support/flags.h"
#include "support/stream.h"

namespace {

using Clock = std::chrono::steady_clock;
using ember::backend::Backend;
using ember::backend::BufferPtr;
using ember::backend::Operand;

struct Timing {
  double best_s;
  double median_s;
};

/// f's wall time over repeats runs after one warm-up.
Timing time_runs(int repeats, const std::function<void()>& f) {
  f();
  std::vector<double> seconds;
  for (int i = 0; i < repeats; ++i) {
    const Clock::time_point start = Clock::now();
    f();
    seconds.push_back(std::chrono::duration<double>(Clock::now() - start).count());
  }
  std::sort(seconds.begin(), seconds.end());
  return {seconds.front(), seconds[seconds.size() / 2]};
}

/// op's single output on backend.
Operand run(Backend& backend, const ember::ir::Op& op, const std::vector<Operand>& inputs) {
  std::vector<ember::ir::TensorMeta> metas;
  for (const Operand& input : inputs)
    metas.push_back(input.meta);
  const ember::ir::OutputMetas outputs = ember::ir::infer(op, metas);
  return {backend.execute(op, inputs, outputs).at(0), outputs[0]};
}

/// 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))) from primitive ops. Only the result is held
/// once it returns (as with temporaries of the Tensor API), so a fused pass stores only it.
Operand queue_gelu(Backend& backend, const Operand& x) {
  using ember::ir::Binary;
  using ember::ir::BinaryOp;
  using ember::ir::BinaryScalar;
  const Operand square = run(backend, Binary{BinaryOp::Mul}, {x, x});
  const Operand cube = run(backend, Binary{BinaryOp::Mul}, {square, x});
  const Operand scaled = run(backend, BinaryScalar{BinaryOp::Mul, 0.044715}, {cube});
  const Operand inner = run(backend, Binary{BinaryOp::Add}, {x, scaled});
  const Operand argument = run(backend, BinaryScalar{BinaryOp::Mul, 0.7978845608028654}, {inner});
  const Operand t = run(backend, ember::ir::Unary{ember::ir::UnaryOp::Tanh}, {argument});
  const Operand one_plus = run(backend, BinaryScalar{BinaryOp::Add, 1.0}, {t});
  const Operand half_x = run(backend, BinaryScalar{BinaryOp::Mul, 0.5}, {x});
  return run(backend, Binary{BinaryOp::Mul}, {half_x, one_plus});
}

/// GELU of x computed (sync makes a lazy backend run it).
void gelu(Backend& backend, const Operand& x) {
  const Operand y = queue_gelu(backend, x);
  backend.sync();
}

ember::TensorData input_data(const ember::Shape& shape) {
  std::vector<float> values(static_cast<std::size_t>(shape.num_elements()));
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<float>(i * 7919 % 65521) / 32760.5f - 1.0f;
  return ember::TensorData(values, shape);
}

/// One measured line of the table.
struct Row {
  std::string backend;
  std::string what;
  Timing timing;
};

/// The rows of one inner backend: one eager op, GELU eager, GELU through FusionBackend.
void add_rows(std::vector<Row>& rows, const std::string& name, std::unique_ptr<Backend> eager,
              std::unique_ptr<Backend> inner, const ember::TensorData& data, int repeats) {
  ember::fusion::FusionBackend fused(std::move(inner), ember::fusion::FusionOptions{});
  const ember::ir::TensorMeta meta{data.shape(), data.dtype()};
  const Operand x_eager{eager->write(data), meta};
  const Operand x_fused{fused.write(data), meta};
  const ember::ir::BinaryScalar times_one{ember::ir::BinaryOp::Mul, 1.0};
  rows.push_back({name, name + " eager x * 1 (1 pass)",
                  time_runs(repeats, [&] { run(*eager, times_one, {x_eager}); })});
  rows.push_back({name, "GELU, " + name + " eager (9 passes)",
                  time_runs(repeats, [&] { gelu(*eager, x_eager); })});
  rows.push_back(
      {name, "GELU, fusion over " + name, time_runs(repeats, [&] { gelu(fused, x_fused); })});
  // Every repeat after the warm-up found the program built by the warm-up.
  const ember::fusion::ProgramCache::Stats cache = fused.cache_stats();
  if (cache.misses != 1) throw std::logic_error("the GELU program was built more than once");
}

void print_row(const char* what, double bytes, Timing timing) {
  std::printf("%-38s %10.2f %10.2f %10.1f %10.1f\n", what, timing.best_s * 1e3,
              timing.median_s * 1e3, bytes / timing.best_s / 1e9, bytes / timing.median_s / 1e9);
}

/// Measures and prints everything; flags as the header says.
void run_benchmark(const ember::bench::Flags& flags) {
  const ember::Shape shape(flags.has("shape") ? flags.integers("shape")
                                              : std::vector<int64_t>{32, 512, 2048});
  const auto repeats = static_cast<int>(flags.integer("repeats", 10));
  const int64_t n = shape.num_elements();
  const int threads = ember::flex::ThreadPool::instance().threads();
  // The traffic of one pass: x read once, y written once.
  const double pass_bytes = 2.0 * static_cast<double>(n) * sizeof(float);

  ember::bench::StreamArrays stream(n, threads);
  const Timing copy = time_runs(repeats, [&] { stream.copy(); });
  const ember::TensorData data = input_data(shape);
  std::vector<Row> rows;
  add_rows(rows, "flex", std::make_unique<ember::flex::FlexBackend>(),
           std::make_unique<ember::flex::FlexBackend>(), data, repeats);
#if EMBER_BACKEND_CPU
  add_rows(rows, "cpu (pooled flex)", ember::cpu::make_cpu_backend(),
           ember::cpu::make_cpu_backend(), data, repeats);
#endif

  std::printf("fusion_gelu_bench: shape [");
  for (std::size_t d = 0; d < shape.rank(); ++d)
    std::printf(d == 0 ? "%lld" : ", %lld", static_cast<long long>(shape[d]));
  std::printf("] f32, %d threads, %d repeats\n", threads, repeats);
  std::printf("%-38s %10s %10s %10s %10s\n", "", "best ms", "median ms", "best GB/s", "med GB/s");
  print_row("STREAM copy (b = a)", static_cast<double>(stream.copy_bytes()), copy);
  for (const Row& row : rows)
    print_row(row.what.c_str(), pass_bytes, row.timing);
  const double stream_rate = static_cast<double>(stream.copy_bytes()) / copy.best_s;
  for (std::size_t r = 0; r + 2 < rows.size(); r += 3) {
    std::printf("%s: fused / eager %.2fx, fused / STREAM copy %.0f%% (best runs)\n",
                rows[r].backend.c_str(), rows[r + 1].timing.best_s / rows[r + 2].timing.best_s,
                100.0 * (pass_bytes / rows[r + 2].timing.best_s) / stream_rate);
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    run_benchmark(ember::bench::Flags(argc, argv, {"shape", "repeats"}));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fusion_gelu_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
