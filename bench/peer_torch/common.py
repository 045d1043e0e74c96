"""What the PyTorch peers of the benchmarks share: thread setup, the deterministic input pattern
(the same values as bench/support/pattern.cpp on the ember side), the process's memory, and a
timing loop that follows Google Benchmark's (the ember side's harness).

Run with the peer's Python, which the drivers choose (bench_driver.py's --peer: PyPI's PyTorch 2.x
in a venv by default, or Debian's 1.13; bench/install-peer installs them). Written for both.
"""

import time

import torch

# Google Benchmark's limits (benchmark_runner.cc): a run stops growing at this many iterations,
# and a run shorter than a tenth of the minimum time grows the count by this factor.
MAX_ITERATIONS = 1_000_000_000
SMALL_RUN_GROWTH = 10.0


def set_threads(threads):
    """Intra-op threads; the driver also sets OMP/MKL/OPENBLAS_NUM_THREADS before the start,
    which OpenMP and the BLAS read only at load time."""
    torch.set_num_threads(threads)


def pattern(shape, seed=0, dtype=torch.float32):
    """Element i (row-major) is ((7919 i + 12345 seed) mod 65521) / 32760.5 - 1: values in
    [-1, 1) that no two elements within 65521 of each other share (so argmax has no ties), with
    the same float32 rounding as ember's (every step is one correctly rounded f32 operation)."""
    n = 1
    for d in shape:
        n *= d
    k = (torch.arange(n, dtype=torch.int64) * 7919 + 12345 * seed) % 65521
    return (k.to(dtype) / 32760.5 - 1.0).reshape(shape)


def checksum(y):
    """Sum of |y| in float64: compared with ember's to check both sides computed the same."""
    return y.double().abs().sum().item()


def memory_kib():
    """(VmRSS, VmHWM) of this process in KiB, from /proc/self/status."""
    values = {}
    with open("/proc/self/status") as status:
        for line in status:
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                values[key] = int(rest.split()[0])
    return values["VmRSS"], values["VmHWM"]


def reset_peak_memory():
    """Resets VmHWM to the current RSS (Linux: writing 5 to /proc/self/clear_refs)."""
    with open("/proc/self/clear_refs", "w") as clear_refs:
        clear_refs.write("5")


def _next_iterations(iterations, seconds, min_time):
    # Google Benchmark's PredictNumItersNeeded.
    significant = seconds / min_time > 0.1
    multiplier = min_time * 1.4 / max(seconds, 1e-9) if significant else SMALL_RUN_GROWTH
    return int(min(round(max(multiplier * iterations, iterations + 1)), MAX_ITERATIONS))


def measure(run, min_time, warmup_iterations=1):
    """run(n) runs the workload n times and returns the last result. After warmup_iterations,
    grows n as Google Benchmark does until one run lasts min_time seconds; returns (seconds per
    iteration, iterations of that run, its last result)."""
    run(warmup_iterations)
    iterations = 1
    while True:
        start = time.perf_counter()
        result = run(iterations)
        seconds = time.perf_counter() - start
        if seconds >= min_time or iterations >= MAX_ITERATIONS:
            return seconds / iterations, iterations, result
        iterations = _next_iterations(iterations, seconds, min_time)
