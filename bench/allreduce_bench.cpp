// All-reduce bus bandwidth on CPU devices (docs/data_parallel.md): --ranks ranks of this process
// (threads meeting in shared memory), times the processes the launcher's variables name (RANK,
// WORLD_SIZE, MASTER_ADDR, MASTER_PORT: Gloo across them). For each --sizes entry (bytes of f32),
// --iters timed sums after --warmup untimed ones; process 0 prints one JSON line per size:
// median seconds, algorithm bandwidth (bytes / s) and bus bandwidth (× 2 (n - 1) / n, the NCCL
// tests' convention), with a check of the sum. bench/run_allreduce.py runs it beside
// torch.distributed's gloo all_reduce.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "ember/collective.h"
#include "ember/ember.h"
#include "support/flags.h"

namespace {

using ember::TensorHandle;
using ember::collective::Communicator;

struct Timing {
  double seconds = 0;
  double checksum = 0;
};

/// Local rank 0's median time of iters all-reduces of elements floats (every rank the same
/// call), after warmup more; checksum is the first element of the last sum.
Timing time_size(ember::collective::Group& group, int64_t elements, int warmup, int iters) {
  std::vector<double> seconds;
  double checksum = 0;
  group.run([&](Communicator& comm) {
    const TensorHandle x =
        ember::ops::full(ember::Shape{elements}, comm.rank() + 1.0,
                         ember::TensorCreationOptions(comm.device()), ember::TensorKind::Float);
    ember::ops::into_data(x);  // computed before the clock starts
    for (int i = 0; i < warmup + iters; ++i) {
      const auto start = std::chrono::steady_clock::now();
      // The result is a new tensor made from the summed host values: computed on return.
      const TensorHandle sum = comm.all_reduce(x, ember::collective::ReduceOp::Sum);
      const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
      if (comm.rank() != group.first_rank()) continue;
      if (i >= warmup) seconds.push_back(took.count());
      if (i + 1 == warmup + iters) {
        checksum = ember::ops::into_data(ember::ops::narrow(sum, 0, 0, 1)).to_vector<double>()[0];
      }
    }
  });
  std::nth_element(seconds.begin(), seconds.begin() + static_cast<std::ptrdiff_t>(iters / 2),
                   seconds.end());
  return {seconds[static_cast<std::size_t>(iters / 2)], checksum};
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const ember::bench::Flags flags(argc, argv, {"sizes", "ranks", "iters", "warmup", "device"});
    const int ranks = static_cast<int>(flags.integer("ranks", 1));
    const ember::Device device = ember::Device::from_name(flags.text("device", "cpu"));
    ember::collective::Group group =
        ember::collective::Group::create(std::vector<ember::Device>(ranks, device));
    const int warmup = static_cast<int>(flags.integer("warmup", 5));
    const int iters = static_cast<int>(flags.integer("iters", 20));
    const double n = group.size();
    for (const int64_t bytes : flags.integers("sizes")) {
      const Timing t = time_size(group, bytes / 4, warmup, iters);
      if (group.first_rank() != 0) continue;
      const double algbw = static_cast<double>(bytes) / t.seconds;
      // Rank r holds r + 1 everywhere: the sum is n (n + 1) / 2.
      std::printf(
          "{\"bytes\": %lld, \"ranks\": %d, \"processes\": %d, \"seconds\": %.9f, "
          "\"algbw\": %.6e, \"busbw\": %.6e, \"sum_ok\": %s}\n",
          static_cast<long long>(bytes), group.size(), group.process().world_size, t.seconds, algbw,
          algbw * 2.0 * (n - 1.0) / n, t.checksum == n * (n + 1.0) / 2.0 ? "true" : "false");
      std::fflush(stdout);
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "allreduce_bench: %s\n", e.what());
    return 1;
  }
}
