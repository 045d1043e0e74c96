// How many threads the CPU backends (flex, and cpu, which runs flex's kernels) run a kernel on:
// one process-wide pool, shared with OpenBLAS, like torch.get_num_threads / set_num_threads.
#pragma once

namespace ember {

/// The threads a CPU kernel runs on: the calling thread plus the pool's workers. The default is
/// EMBER_NUM_THREADS when it is a positive integer, else OMP_NUM_THREADS (its first entry), else
/// the CPUs this process may run on: its affinity mask, as `taskset -c 0` or a container's cpuset
/// limit it. 1 when no CPU backend is compiled in.
int num_threads();

/// Runs every later CPU kernel on n threads (n >= 1, else InvalidArgument "[set_num_threads]");
/// OpenBLAS follows. Kernels already running finish on the threads they have.
void set_num_threads(int n);

}  // namespace ember
